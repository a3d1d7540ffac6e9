/**
 * `parlance decode`: decodes a provider's recorded (or piped) response body with one
 * dialect and prints what Parlance makes of it: the collected Response as one JSON
 * object, or every protocol event as a JSON line (`--events`). This is how a user
 * debugs a provider's stream, and how the decoders are checked from outside.
 *
 * Exit codes: 0 the stream decoded to a finished response; 1 it decoded, but to an
 * error (a provider error event, a cut or corrupt stream: the output is still printed
 * in full); 2 a usage error (unknown option or dialect, missing or unreadable file).
 */
import { parseArgs } from 'node:util';
import { DIALECT_IDS, decodeStream, getDialect, isDialectId, type DialectId } from '@parlance/dialects';
import { createFoldState, reduceEvents, toResponse, type Event } from '@parlance/protocol';
import { chunksToWire } from './chunks-framing.ts';

/**
 * Exit code: the stream decoded and ended normally.
 *
 * @example
 * process.exitCode = await runCli(argv, io); // EXIT_OK on success
 */
export const EXIT_OK = 0;
/**
 * Exit code: the stream decoded, and the provider reported an error in it (or it broke off).
 *
 * @example
 * if ((await runCli(argv, io)) === EXIT_DECODED_ERROR) console.error('the provider stream ended in an error');
 */
export const EXIT_DECODED_ERROR = 1;
/**
 * Exit code: bad arguments (the help text is printed).
 *
 * @example
 * expect(await runCli(['decode'], io)).toBe(EXIT_USAGE);
 */
export const EXIT_USAGE = 2;

/**
 * Where `runCli` writes (a Node stream, or anything with `write`); `once('drain')` is awaited for back-pressure.
 *
 * @example
 * let out = '';
 * const sink: Writable = { write: (chunk) => ((out += chunk), true) };
 */
export interface Writable {
  write(chunk: string): unknown;
  once?(event: 'drain', listener: () => void): unknown;
}

/**
 * `runCli`'s input and outputs, injectable for tests.
 *
 * @example
 * const io: CliIo = { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr };
 */
export interface CliIo {
  /** Read when the input is `-`. */
  stdin: AsyncIterable<Uint8Array | string>;
  stdout: Writable;
  stderr: Writable;
  /** Opens a file as a byte stream (default: node:fs). */
  openFile?: (path: string) => Promise<ReadableStream<Uint8Array>>;
}

/**
 * The `parlance` help text.
 *
 * @example
 * console.log(HELP);
 */
export const HELP = `Usage: parlance decode --dialect <id> [options] <file | ->
       parlance gateway --config <file>   (see parlance gateway --help)

Decode a provider's streaming response body into Parlance protocol events.

Arguments:
  <file>               a recorded response body (SSE, NDJSON or *.chunks.txt)
  -                    read the body from standard input

Options:
  -d, --dialect <id>   the wire format: ${DIALECT_IDS.join(', ')}
  -e, --events         print every protocol event as a JSON line,
                       instead of the collected Response as one JSON object
  -f, --framing <how>  auto (default), raw or chunks; chunks: one JSON payload per
                       line with the SSE framing stripped (auto for *.chunks.txt)
  -h, --help           show this help

Exit codes:
  0  the stream decoded to a finished response
  1  the stream decoded, but to an error (provider error, cut or corrupt
     stream); the output is still printed in full
  2  usage error (unknown option or dialect, missing file)

Examples:
  parlance decode --dialect anthropic_messages response.sse
  curl -N ... | parlance decode --dialect openai_completions --events -
`;

class UsageError extends Error {}

interface DecodeArgs {
  dialect: DialectId;
  events: boolean;
  framing: 'raw' | 'chunks';
  input: string;
}

const OPTIONS = {
  dialect: { type: 'string', short: 'd' },
  events: { type: 'boolean', short: 'e' },
  framing: { type: 'string', short: 'f' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: string[]): DecodeArgs | 'help' {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; allowPositionals: true; strict: true; options: typeof OPTIONS }>>;
  try {
    parsed = parseArgs({ args: argv, allowPositionals: true, strict: true, options: OPTIONS });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) return 'help';
  const [command, ...rest] = positionals;
  if (command === 'help') return 'help';
  if (command !== 'decode') throw new UsageError(`Unknown command "${command}". Commands: decode, gateway.`);
  if (values.dialect === undefined) throw new UsageError(`Missing --dialect. One of: ${DIALECT_IDS.join(', ')}`);
  if (!isDialectId(values.dialect)) {
    throw new UsageError(`Unknown dialect "${values.dialect}". One of: ${DIALECT_IDS.join(', ')}`);
  }
  if (rest.length === 0) throw new UsageError('Missing input: give a file, or - to read standard input.');
  if (rest.length > 1) throw new UsageError(`Expected one input, got ${rest.length}: ${rest.join(' ')}`);
  const input = rest[0]!;
  const framing = values.framing ?? 'auto';
  if (framing !== 'auto' && framing !== 'raw' && framing !== 'chunks') {
    throw new UsageError(`Unknown --framing "${framing}". One of: auto, raw, chunks`);
  }
  return {
    dialect: values.dialect,
    events: values.events ?? false,
    framing: framing === 'auto' ? (input.endsWith('.chunks.txt') ? 'chunks' : 'raw') : framing,
    input,
  };
}

function streamOf(source: AsyncIterable<Uint8Array | string>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  const iterator = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await iterator.next();
      if (done) controller.close();
      else controller.enqueue(typeof value === 'string' ? encoder.encode(value) : value);
    },
    async cancel() {
      await iterator.return?.();
    },
  });
}

async function openFileDefault(path: string): Promise<ReadableStream<Uint8Array>> {
  const { open } = await import('node:fs/promises');
  const handle = await open(path, 'r');
  const stats = await handle.stat();
  if (stats.isDirectory()) {
    await handle.close();
    throw new UsageError(`${path} is a directory, not a response body`);
  }
  return streamOf(
    (async function* () {
      try {
        for await (const chunk of handle.createReadStream({ highWaterMark: 64 * 1024 })) yield chunk as Uint8Array;
      } finally {
        await handle.close().catch(() => {});
      }
    })(),
  );
}

async function write(out: Writable, text: string): Promise<void> {
  // Respect back-pressure so a long --events run into a slow pipe stays in bounded memory.
  if (out.write(text) === false && out.once) await new Promise<void>((resolve) => out.once!('drain', resolve));
}

/**
 * Runs the CLI with `argv` (without node and script). Resolves to the exit code; never throws.
 *
 * @example
 * const code = await runCli(['decode', '--events', '--dialect', 'anthropic_messages', 'stream.sse'], { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let args: DecodeArgs | 'help';
  try {
    args = parse(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    await write(io.stderr, `parlance: ${error.message}\nRun "parlance --help" for usage.\n`);
    return EXIT_USAGE;
  }
  if (args === 'help') {
    await write(io.stdout, HELP);
    return EXIT_OK;
  }

  let body: ReadableStream<Uint8Array>;
  try {
    body = args.input === '-' ? streamOf(io.stdin) : await (io.openFile ?? openFileDefault)(args.input);
  } catch (error) {
    const message =
      error instanceof UsageError
        ? error.message
        : (error as NodeJS.ErrnoException).code === 'ENOENT'
          ? `No such file: ${args.input}`
          : `Cannot read ${args.input}: ${error instanceof Error ? error.message : String(error)}`;
    await write(io.stderr, `parlance: ${message}\n`);
    return EXIT_USAGE;
  }

  const dialect = getDialect(args.dialect);
  if (args.framing === 'chunks') {
    body = body
      .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
      .pipeThrough(chunksToWire(args.dialect, dialect.framing))
      .pipeThrough(new TextEncoderStream());
  }

  let state = createFoldState();
  let failed = false;
  for await (const event of decodeStream(dialect, body) as AsyncIterable<Event>) {
    state = reduceEvents(state, event);
    if (event.type === 'error') failed = true;
    if (args.events) await write(io.stdout, `${JSON.stringify(event)}\n`);
  }
  const response = toResponse(state);
  if (response.finishReason === 'error' || response.error) failed = true;
  if (!args.events) await write(io.stdout, `${JSON.stringify(response, null, 2)}\n`);
  return failed ? EXIT_DECODED_ERROR : EXIT_OK;
}
