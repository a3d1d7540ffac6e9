/**
 * `parlance gateway --config <file>` spawned as a process on a free port: a caller's
 * request in one provider's API reaches a mock provider of another with the provider key
 * from the environment, usage is logged per key, SIGTERM stops it; bad configs exit 2.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serveMockProvider, type MockProviderServer } from '@parlance/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway-command.ts';

const BIN = join(import.meta.dirname, 'bin.ts');
const CWD = join(import.meta.dirname, '..');

let dir: string;
let mock: MockProviderServer;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'parlance-gateway-'));
  mock = await serveMockProvider({ dialect: 'anthropic_messages', script: [{ text: 'Hello through the gateway.', usage: { inputTokens: 7, outputTokens: 4 } }] });
});

afterAll(async () => {
  await mock.close();
  await rm(dir, { recursive: true, force: true });
});

function start(args: string[], env: Record<string, string>): { child: ChildProcess; url: Promise<string>; output: () => string } {
  const child = spawn(process.execPath, ['--import', 'tsx', BIN, 'gateway', ...args], { cwd: CWD, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (http:\/\/\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  // A test that expects the process to fail never awaits the URL.
  url.catch(() => {});
  return { child, url, output: () => out };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve(child.exitCode) : child.once('exit', (code) => resolve(code))));
}

describe('parlance gateway', () => {
  it('serves the configured routes with provider keys from the environment, logs usage per key, stops on SIGTERM', async () => {
    const config = join(dir, 'gateway.json');
    await writeFile(
      config,
      JSON.stringify({
        routes: { claude: { provider: 'anthropic', model: 'claude-test', baseURL: mock.url, retry: false } },
        keysFromEnv: { TEST_GATEWAY_KEY: { id: 'dev', models: ['claude'] } },
        logUsage: true,
      }),
    );
    const { child, url, output } = start(['--config', config, '--port', '0'], { TEST_GATEWAY_KEY: 'gw-key-1-0c4f7a9e', ANTHROPIC_API_KEY: 'sk-ant-from-env' });
    try {
      const base = await url;
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const response = await fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: 'Bearer gw-key-1-0c4f7a9e', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { object: string; choices: { message: { content: string } }[]; usage: { prompt_tokens: number } };
      expect(body).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Hello through the gateway.' } }], usage: { prompt_tokens: 7 } });
      expect(mock.requests.at(-1)?.headers['x-api-key']).toBe('sk-ant-from-env');
      const refused = await fetch(`${base}/v1/messages`, { method: 'POST', headers: { 'x-api-key': 'not-a-key' }, body: '{}' });
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
      await expect.poll(() => output()).toContain('"key":"dev"');
      expect(output()).toContain('"model":"claude"');
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exitOf(child)).toBe(0);
  }, 60_000);

  it('exits 2 with the reason for a bad config or a missing file', async () => {
    const bad = join(dir, 'bad.json');
    await writeFile(bad, JSON.stringify({ routes: { a: 'openai:gpt-5' } }));
    const { child, output } = start(['--config', bad, '--port', '0'], {});
    expect(await exitOf(child)).toBe(2);
    expect(output()).toContain('at least one gateway key');
    const weak = join(dir, 'weak.json');
    await writeFile(weak, JSON.stringify({ routes: { a: 'openai:gpt-5' }, keys: { 'sk-short': { id: 'team-a' } } }));
    const short = start(['--config', weak, '--port', '0'], {});
    expect(await exitOf(short.child)).toBe(2);
    expect(short.output()).toContain('16');
    expect(short.output()).not.toContain('listening');
    expect(short.output()).not.toContain('sk-short');
    const missing = start(['--config', join(dir, 'nope.json')], {});
    expect(await exitOf(missing.child)).toBe(2);
    expect(missing.output()).toContain('No such file');
  }, 60_000);

  it('checks every field of the config', () => {
    expect(() => parseGatewayConfig({ routes: {} })).toThrow('"routes"');
    expect(() => parseGatewayConfig({ routes: { a: 'x:y' }, keys: { k: { models: [] } } })).toThrow('needs an "id"');
    expect(() => parseGatewayConfig({ routes: { a: 'x:y' }, keys: { k: { id: 'a', rateLimit: { requests: 'many' } } } })).toThrow('rateLimit');
    expect(() => parseGatewayConfig({ routes: { a: 'x:y' }, port: 70000, keys: { k: { id: 'a' } } })).toThrow('"port"');
    expect(parseGatewayConfig({ routes: { a: 'x:y' }, keys: { k: { id: 'a' } }, port: 0 })).toMatchObject({ port: 0, routes: { a: 'x:y' } });
  });
});
