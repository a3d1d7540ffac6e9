/**
 * Per-provider entry points (`@parlance/engine/providers/<id>`): one module per built-in provider,
 * each listed in the package's exports, each the same object as the root's; a provider from one
 * carries its own dialects and catalog table only, and resolves through `resolveModelWith` /
 * `createEngineWith` without any other provider.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { messageText, type Event, ParlanceError } from '@parlance/protocol';
import type { DialectId } from '@parlance/dialects';
import { mockProviderServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { createEngineWith } from '../engine.ts';
import { anthropic } from './entries/anthropic.ts';
import { openai } from './entries/openai.ts';
import { builtinProviders } from './builtin/index.ts';
import { resolveModel } from './resolve-model.ts';
import { resolveModelWith } from './resolve-with.ts';
import type { Provider } from './types.ts';

const packageDir = join(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as {
  exports: Record<string, string>;
  publishConfig: { exports: Record<string, Record<string, string>> };
};
const entryIds = readdirSync(join(import.meta.dirname, 'entries'))
  .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
  .map((file) => file.slice(0, -3));

async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** Every `./providers/<id>` subpath: its id, source module and published twin. */
const providerEntries = Object.entries(manifest.exports)
  .filter(([subpath]) => subpath.startsWith('./providers/'))
  .map(([subpath, source]) => ({ id: subpath.slice('./providers/'.length), subpath, source }));

describe('the entry points', () => {
  it('give every built-in provider, and every module in entries/, its own', () => {
    const ids = providerEntries.map((e) => e.id);
    expect(Object.keys(builtinProviders).filter((id) => !ids.includes(id))).toEqual([]);
    expect(entryIds.filter((id) => manifest.exports[`./providers/${id}`] !== `./src/providers/entries/${id}.ts`)).toEqual([]);
  });

  // A new provider slots in with its module and its two lines in package.json; this says which one is wrong.
  it.each(providerEntries)('$subpath is published from dist and exports the provider $id', async ({ id, subpath, source }) => {
    const dist = source.replace('./src/', './dist/').replace(/\.ts$/, '');
    expect(manifest.publishConfig.exports[subpath]).toEqual({ types: `${dist}.d.ts`, import: `${dist}.js`, default: `${dist}.js` });
    const entry = (await import(join(packageDir, source))) as Record<string, Provider>;
    expect(entry[id]?.id).toBe(id);
    if (Object.hasOwn(builtinProviders, id)) {
      expect(Object.keys(entry)).toEqual([id]);
      expect(entry[id]).toBe(builtinProviders[id]);
    }
  });
});

describe('a provider from its entry point', () => {
  // A dialect setting from a config file is a string: an unknown one is refused the same way.
  it('speaks only the dialects it bundles: another one is a typed error in the stream', async () => {
    const cases = [
      { provider: anthropic, dialect: 'openai_completions', message: 'Anthropic speaks anthropic_messages, not openai_completions' },
      { provider: openai, dialect: 'google_gemini', message: 'OpenAI speaks openai_responses, openai_completions, not google_gemini' },
      { provider: anthropic, dialect: 'klingon', message: 'Unknown dialect "klingon"' },
    ];
    for (const { provider, dialect, message } of cases) {
      const events = await collect(provider.model('m-1', { dialect: dialect as DialectId, apiKey: 'k', fetch: () => Promise.reject(new Error('no call')) }).stream({ messages: [] }));
      const error = events.find((e) => e.type === 'error');
      expect(error, dialect).toMatchObject({ code: 'invalid_request' });
      expect(error && 'message' in error ? error.message : '').toContain(message);
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
    }
  });

  it('looks models up in its own catalog table', () => {
    expect(anthropic.model('claude-sonnet-4-5').info).toMatchObject({ known: true, contextWindow: 200_000 });
    expect(anthropic.model('gpt-4.1').info.known).toBe(false);
    expect(openai.model('gpt-4.1').info.known).toBe(true);
  });
});

describe('resolveModelWith', () => {
  const resolve = resolveModelWith([anthropic]);

  it('resolves the ids of the providers it is given', () => {
    expect(resolve('anthropic:claude-sonnet-4-5', {})).toMatchObject({ provider: 'anthropic', modelId: 'claude-sonnet-4-5' });
  });

  // Every id that is not one of its providers, inherited object keys included, is the same typed error.
  it.each(['openai:gpt-5', 'constructor:x', '__proto__:x', 'toString:x', 'hasOwnProperty:x'])('refuses %s', (spec) => {
    const thrown = (() => {
      try {
        resolve(spec, {});
      } catch (error) {
        return error;
      }
    })();
    expect(thrown).toBeInstanceOf(ParlanceError);
    expect(thrown).toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Known providers: anthropic') });
  });

  it.each(['constructor:x', '__proto__:x', 'toString:x'])('resolveModel refuses %s as well (no inherited key is a provider)', (spec) => {
    expect(() => resolveModel(spec)).toThrow(/Unknown provider/);
  });
});

describe('createEngineWith', () => {
  it('runs a chat with a model id of its providers', async () => {
    const upstream = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'Hello from Anthropic.' }] });
    const engine = createEngineWith([anthropic], { env: { ANTHROPIC_API_KEY: 'sk-ant-test' }, fetch: (input, init) => upstream(new Request(input, init)) });
    const result = await engine.chat({ model: 'anthropic:claude-sonnet-4-5', prompt: 'Hi' });
    expect(messageText(result.thread.messages.at(-1)!)).toBe('Hello from Anthropic.');
  });

  it('refuses a model id of a provider it was not given', async () => {
    const engine = createEngineWith([anthropic]);
    await expect(engine.chat({ model: 'openai:gpt-5', prompt: 'Hi' })).rejects.toMatchObject({ code: 'invalid_request', message: expect.stringContaining('Unknown provider "openai"') });
  });
});
