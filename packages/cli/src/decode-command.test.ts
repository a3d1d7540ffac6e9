import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { collectResponse, type Event, type Response } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { EXIT_DECODED_ERROR, EXIT_OK, EXIT_USAGE, runCli } from './decode-command.ts';

const FIXTURES = join(import.meta.dirname, '../../dialects/test/fixtures');
const ANTHROPIC_SSE = join(FIXTURES, 'anthropic_messages/omni__anthropic_text.sse');
const ANTHROPIC_CHUNKS = join(FIXTURES, 'anthropic_messages/vercel-ai__anthropic__anthropic-text.chunks.txt');

function capture() {
  let text = '';
  return {
    write(chunk: string) {
      text += chunk;
      return true;
    },
    get text() {
      return text;
    },
  };
}

async function* chunksOf(text: string, size = 7): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

async function run(argv: string[], stdinText = '') {
  const stdout = capture();
  const stderr = capture();
  const code = await runCli(argv, { stdin: chunksOf(stdinText), stdout, stderr });
  return { code, stdout: stdout.text, stderr: stderr.text };
}

/** The text a recording streamed, read from its own payloads (not from our decoder). */
function anthropicText(payloads: unknown[]): string {
  let text = '';
  for (const payload of payloads as { type?: string; delta?: { type?: string; text?: string } }[]) {
    if (payload.type === 'content_block_delta' && payload.delta?.type === 'text_delta') text += payload.delta.text;
  }
  return text;
}
const ssePayloads = (raw: string) =>
  raw
    .split('\n')
    .filter((line) => line.startsWith('data:'))
    .map((line) => JSON.parse(line.slice(5)));
const chunkPayloads = (raw: string) =>
  raw
    .split('\n')
    .filter((line) => line.trim())
    .map((line) => JSON.parse(line));

function textOf(response: Response): string {
  return response.message.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

describe('parlance decode', () => {
  it('prints the collected Response of a recorded SSE body as one JSON object', async () => {
    const { code, stdout, stderr } = await run(['decode', '--dialect', 'anthropic_messages', ANTHROPIC_SSE]);
    expect(stderr).toBe('');
    expect(code).toBe(EXIT_OK);
    const response = JSON.parse(stdout) as Response;
    expect(textOf(response)).toBe(anthropicText(ssePayloads(readFileSync(ANTHROPIC_SSE, 'utf8'))));
    expect(response.finishReason).toBe('stop');
  });

  it('prints every event as a JSON line with --events, folding to the same Response', async () => {
    const whole = await run(['decode', '--dialect', 'anthropic_messages', ANTHROPIC_SSE]);
    const { code, stdout } = await run(['decode', '-d', 'anthropic_messages', '--events', ANTHROPIC_SSE]);
    expect(code).toBe(EXIT_OK);
    const events = stdout.trimEnd().split('\n').map((line) => JSON.parse(line) as Event);
    expect(events[0]?.type).toBe('message-start');
    expect(events.at(-1)?.type).toBe('finish');
    expect(await collectResponse(events)).toEqual(JSON.parse(whole.stdout));
  });

  it('reads standard input for -', async () => {
    const raw = readFileSync(ANTHROPIC_SSE, 'utf8');
    const { code, stdout } = await run(['decode', '--dialect=anthropic_messages', '-'], raw);
    expect(code).toBe(EXIT_OK);
    expect(textOf(JSON.parse(stdout))).toBe(anthropicText(ssePayloads(raw)));
  });

  it('re-frames *.chunks.txt recordings automatically, and stdin with --framing chunks', async () => {
    const raw = readFileSync(ANTHROPIC_CHUNKS, 'utf8');
    const expected = anthropicText(chunkPayloads(raw));
    expect(expected.length).toBeGreaterThan(0);
    const fromFile = await run(['decode', '--dialect', 'anthropic_messages', ANTHROPIC_CHUNKS]);
    expect(fromFile.code).toBe(EXIT_OK);
    expect(textOf(JSON.parse(fromFile.stdout))).toBe(expected);
    const fromStdin = await run(['decode', '--dialect', 'anthropic_messages', '--framing', 'chunks', '-'], raw);
    expect(fromStdin.code).toBe(EXIT_OK);
    expect(JSON.parse(fromStdin.stdout)).toEqual(JSON.parse(fromFile.stdout));
  });

  it('exits 1 for a stream that decodes to an error, still printing what arrived', async () => {
    const raw = readFileSync(ANTHROPIC_SSE, 'utf8');
    const cut = raw.slice(0, raw.indexOf('event: content_block_stop'));
    const { code, stdout } = await run(['decode', '--dialect', 'anthropic_messages', '-'], cut);
    expect(code).toBe(EXIT_DECODED_ERROR);
    const response = JSON.parse(stdout) as Response;
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('invalid_response');
    expect(textOf(response)).toBe(anthropicText(ssePayloads(cut)));
    expect(textOf(response).length).toBeGreaterThan(0);
  });

  it('prints help and exits 0', async () => {
    for (const argv of [['--help'], [], ['decode', '--help']]) {
      const { code, stdout } = await run(argv);
      expect(code).toBe(EXIT_OK);
      expect(stdout).toContain('Usage: parlance decode --dialect <id>');
      expect(stdout).toContain('anthropic_messages');
    }
  });

  it.each([
    [['decode', ANTHROPIC_SSE], /Missing --dialect/],
    [['decode', '--dialect', 'klingon', ANTHROPIC_SSE], /Unknown dialect "klingon"\. One of: openai_completions/],
    [['decode', '--dialect', 'anthropic_messages'], /Missing input/],
    [['decode', '--dialect', 'anthropic_messages', 'a', 'b'], /Expected one input/],
    [['decode', '--dialect', 'anthropic_messages', '--framing', 'xml', ANTHROPIC_SSE], /Unknown --framing "xml"/],
    [['decode', '--dialect', 'anthropic_messages', '--verbose', ANTHROPIC_SSE], /--verbose/],
    [['encode', '--dialect', 'anthropic_messages', ANTHROPIC_SSE], /Unknown command "encode"/],
    [['decode', '--dialect', 'anthropic_messages', join(FIXTURES, 'nope.sse')], /No such file: .*nope\.sse/],
    [['decode', '--dialect', 'anthropic_messages', FIXTURES], /is a directory/],
  ])('exits 2 with a clear message for %j', async (argv, message) => {
    const { code, stdout, stderr } = await run(argv as string[]);
    expect(code).toBe(EXIT_USAGE);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
  });
});

describe('the parlance executable', () => {
  it('runs from source and sets the exit code', async () => {
    const bin = join(import.meta.dirname, 'bin.ts');
    const cwd = join(import.meta.dirname, '..');
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', bin, 'decode', '--dialect', 'anthropic_messages', ANTHROPIC_SSE], { cwd });
    expect(textOf(JSON.parse(stdout))).toBe(anthropicText(ssePayloads(readFileSync(ANTHROPIC_SSE, 'utf8'))));
    const failed = await promisify(execFile)(process.execPath, ['--import', 'tsx', bin, 'decode', ANTHROPIC_SSE], { cwd }).then(
      () => undefined,
      (error: { code?: number; stderr?: string }) => error,
    );
    expect(failed?.code).toBe(EXIT_USAGE);
    expect(failed?.stderr).toContain('Missing --dialect');
  }, 30_000);
});
