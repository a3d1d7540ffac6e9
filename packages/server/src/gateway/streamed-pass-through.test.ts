/**
 * A streamed caller of the provider's own API gets the provider's bytes unchanged (SSE, or NDJSON for
 * Ollama), on the terms a non-streamed body is passed through on, while the gateway still reads usage,
 * the finish and failures from the decoded events. Recorded provider streams (dialects' fixtures),
 * sent in chunks cut mid-frame.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECT_IDS, type DialectId, decodeText } from '@parlance/dialects';
import { resolveModel } from '@parlance/engine';
import type { Event, LanguageModel, ModelCallOptions } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { appModel, post, target } from '../../test/gateway-calls.ts';
import { createGateway } from './gateway.ts';
import type { RouteTarget } from './routing.ts';
import { staticKeys } from './keys.ts';
import type { GatewayFinish } from './options.ts';

const FIXTURES = join(import.meta.dirname, '../../../dialects/test/fixtures');
const read = (dialect: DialectId, file: string) => readFileSync(join(FIXTURES, dialect, file), 'utf8');

/** A recorded stream per API, as its provider sent it, with what the caller must see of it. */
const RECORDED: Record<DialectId, { text: string; id: string; model: string; inputTokens: number; finish?: string }> = {
  openai_completions: { text: read('openai_completions', 'omni__openrouter_text.sse'), id: 'gen-1771689409-ZPj2NeseO9viCwDF4KvA', model: 'openai/gpt-4o-mini', inputTokens: 18 },
  openai_responses: {
    text: read('openai_responses', 'pydantic-ai__test_openai_responses_streaming_usage.i0.sse'),
    id: 'resp_0050471a34b36ae60068c97b94a480819587a9d70cf2979b33',
    model: 'gpt-5-2025-08-07',
    inputTokens: 53,
    finish: 'tool-calls',
  },
  anthropic_messages: { text: read('anthropic_messages', 'omni__anthropic_text.sse'), id: 'msg_01XmuRZGsxsLrEhgumsuunGN', model: 'claude-haiku-4-5-20251001', inputTokens: 18 },
  // Recorded as one JSON chunk a line; Gemini frames them as SSE with CRLF.
  google_gemini: {
    text: read('google_gemini', 'vercel-ai__google__google-text.chunks.txt')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => `data: ${line}\r\n\r\n`)
      .join(''),
    id: 'bH6LaZW8Fp_3nsEPqtaSwQ4',
    model: 'gemini-3-pro-preview',
    inputTokens: 9,
  },
  ollama_chat: { text: read('ollama_chat', 'omni__ollama_text.ndjson'), id: '', model: 'qwen3.5:4b', inputTokens: -1 },
};
const authorize = staticKeys({ k1: { id: 'a' } });
const CONTENT_TYPE: Record<DialectId, string> = {
  openai_completions: 'text/event-stream',
  openai_responses: 'text/event-stream',
  anthropic_messages: 'text/event-stream',
  google_gemini: 'text/event-stream',
  ollama_chat: 'application/x-ndjson',
};

/** The text as a body of chunks cut every `size` bytes (mid-frame, mid-character). */
function chunked(text: string, size = 97, onCancel?: () => void, fail?: Error): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.length) return fail ? controller.error(fail) : controller.close();
      controller.enqueue(bytes.slice(at, at + size));
      at += size;
    },
    cancel: () => onCancel?.(),
  });
}

const streaming = (dialect: DialectId, text: string, onCancel?: () => void, fail?: Error) => () =>
  new Response(chunked(text, 97, onCancel, fail), { headers: { 'content-type': CONTENT_TYPE[dialect] } });

/** The text of an Anthropic stream: its text deltas, joined. */
const anthropicText = (sse: string): string =>
  decodeText('anthropic_messages', sse)
    .map((event) => (event.type === 'text-delta' ? event.delta : ''))
    .join('');

/** The caller's request options that make a stream pass-through-able (Chat Completions: the usage chunk asked for). */
const USAGE = { stream_options: { include_usage: true } };

describe("a streamed caller of the provider's own API gets the provider's bytes", () => {
  it.each(DIALECT_IDS)('%s: byte-identical frames, the provider id and model, usage and finish still counted', async (dialect) => {
    const recorded = RECORDED[dialect];
    const finishes: GatewayFinish[] = [];
    const app = createGateway({ routes: { m: target(dialect, streaming(dialect, recorded.text)) }, authorize, onFinish: (finish) => void finishes.push(finish) });
    const response = await post(app, dialect, 'm', true, dialect === 'openai_completions' ? USAGE : undefined);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain(CONTENT_TYPE[dialect]);
    const text = await response.text();
    expect(text).toBe(recorded.text);
    expect(text).toContain(`"${recorded.model}"`);
    if (recorded.id) expect(text).toContain(`"${recorded.id}"`);
    const finish = finishes.at(-1)!;
    expect(finish.finishReason).toBe(recorded.finish ?? 'stop');
    expect(finish.providerModel).toBe('mock-1');
    expect(finish.usage.outputTokens).toBeGreaterThan(0);
    if (recorded.inputTokens > 0) expect(finish.usage.inputTokens).toBe(recorded.inputTokens);
  });

  it.each(DIALECT_IDS)('%s upstream: callers of every other API get a re-encoded stream, as before', async (upstream) => {
    const app = createGateway({ routes: { m: target(upstream, streaming(upstream, RECORDED[upstream].text)) }, authorize });
    for (const caller of DIALECT_IDS.filter((id) => id !== upstream)) {
      const text = await (await post(app, caller, 'm', true, caller === 'openai_completions' ? USAGE : undefined)).text();
      expect(text, caller).not.toBe(RECORDED[upstream].text);
      expect(text, caller).not.toContain(`"${RECORDED[upstream].model}"`);
    }
  });

  it('a Chat Completions caller who did not ask for the usage chunk gets a re-encoded stream without one', async () => {
    const app = createGateway({ routes: { m: target('openai_completions', streaming('openai_completions', RECORDED.openai_completions.text)) }, authorize });
    const text = await (await post(app, 'openai_completions', 'm', true)).text();
    expect(text).not.toBe(RECORDED.openai_completions.text);
    expect(text).not.toContain('"usage"');
  });

  it('a kept Responses answer is re-encoded (its items are named by the gateway)', async () => {
    const { createMemoryRunStore } = await import('../memory-run-store.ts');
    const app = createGateway({ routes: { m: target('openai_responses', streaming('openai_responses', RECORDED.openai_responses.text)) }, authorize, store: createMemoryRunStore() });
    const text = await (await post(app, 'openai_responses', 'm', true, { store: true })).text();
    expect(text).not.toContain(RECORDED.openai_responses.id);
  });

  it('a caller who stops reading closes the upstream', async () => {
    let cancelled!: () => void;
    const closed = new Promise<void>((resolve) => (cancelled = resolve));
    // An upstream that sends its first frames, then never ends.
    const endless = () =>
      new Response(
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode(RECORDED.anthropic_messages.text.split('event: content_block_stop')[0]!));
          },
          cancel: () => cancelled(),
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const app = createGateway({ routes: { m: target('anthropic_messages', endless) }, authorize });
    const response = await post(app, 'anthropic_messages', 'm', true);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('msg_01XmuRZGsxsLrEhgumsuunGN');
    await reader.cancel();
    await closed;
  });

  it("a fallback chain forwards the bytes of the model that answered, not an earlier one's", async () => {
    const failing = () => Response.json({ type: 'error', error: { type: 'overloaded_error', message: 'Busy' } }, { status: 529 });
    const app = createGateway({
      routes: { m: [target('anthropic_messages', failing, 'first'), target('anthropic_messages', streaming('anthropic_messages', RECORDED.anthropic_messages.text), 'second')] },
      authorize,
    });
    expect(await (await post(app, 'anthropic_messages', 'm', true)).text()).toBe(RECORDED.anthropic_messages.text);
  });

  // The relay lets the upstream decoder skip the text deltas it can tell unparsed (the caller reads the text from the
  // bytes): the gateway asks it of every model (`relayDialect`, the caller's API), and the Anthropic and Ollama models
  // then hand it no text after a block's start, while the caller still gets every byte and the finish still counts.
  it.each(DIALECT_IDS)('%s: the gateway asks the model to leave out text the caller reads from the bytes', async (dialect) => {
    const recorded = RECORDED[dialect];
    const real = resolveModel(target(dialect, streaming(dialect, recorded.text)));
    const asked: ModelCallOptions[] = [];
    const seen: Event[] = [];
    const spy: LanguageModel = {
      ...real,
      stream: (request, options) => {
        asked.push(options ?? {});
        const events = real.stream(request, options);
        return (async function* () {
          for await (const event of events) {
            seen.push(event);
            yield event;
          }
        })();
      },
    };
    const finishes: GatewayFinish[] = [];
    const app = createGateway({ routes: { m: spy }, authorize, onFinish: (finish) => void finishes.push(finish) });
    const text = await (await post(app, dialect, 'm', true, dialect === 'openai_completions' ? USAGE : undefined)).text();
    expect(text).toBe(recorded.text);
    expect(asked[0]).toMatchObject({ relayDialect: dialect, onBytes: expect.any(Function) });
    const deltas = seen.filter((event) => event.type === 'text-delta').length;
    const all = decodeText(dialect, recorded.text).filter((event) => event.type === 'text-delta').length;
    if (dialect === 'anthropic_messages' || dialect === 'ollama_chat') {
      expect(all).toBeGreaterThan(5);
      expect(deltas).toBeLessThanOrEqual(1);
    } else expect(deltas).toBe(all);
    expect(finishes.at(-1)?.finishReason).toBe(recorded.finish ?? 'stop');
  });

  // Only for a model of the caller's API, whose bytes the caller gets: a fallback to another API's model is decoded
  // whole and re-encoded, and a fallback to a LanguageModel of the app's own (it reports no bytes) is never answered
  // with the bytes the failed model had sent.
  const beforeContent = `${RECORDED.anthropic_messages.text.split('event: content_block_start')[0]!}`;
  const failures: [string, RouteTarget][] = [
    ['an HTTP 529', target('anthropic_messages', () => Response.json({ type: 'error', error: { type: 'overloaded_error', message: 'Busy' } }, { status: 529 }), 'first')],
    ['an error event after message_start', target('anthropic_messages', streaming('anthropic_messages', `${beforeContent}event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Busy"}}\n\n`), 'first')],
    ['a connection lost after message_start', target('anthropic_messages', streaming('anthropic_messages', beforeContent, undefined, new TypeError('terminated')), 'first')],
  ];
  const seconds: [string, RouteTarget][] = [
    ["another API's model", target('openai_completions', streaming('openai_completions', RECORDED.openai_completions.text), 'second')],
    ["the app's own LanguageModel", appModel('anthropic_messages', ['An answer ', 'from the app', "'s own model."])],
  ];
  it.each(failures.flatMap(([failure, first]) => seconds.map(([name, second]) => [failure, name, first, second] as const)))(
    'an Anthropic caller whose Anthropic model fails (%s) before content gets the answer of %s, whole',
    async (_failure, _name, first, second) => {
      const chain = createGateway({ routes: { m: [first, second] }, authorize });
      const alone = createGateway({ routes: { m: second }, authorize });
      const text = anthropicText(await (await post(chain, 'anthropic_messages', 'm', true)).text());
      expect(text.length).toBeGreaterThan(20);
      expect(text).toBe(anthropicText(await (await post(alone, 'anthropic_messages', 'm', true)).text()));
    },
  );

  it('a failure before any content is still the caller-format HTTP error, with the Retry-After', async () => {
    const limited = () => Response.json({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }, { status: 429, headers: { 'retry-after': '7' } });
    const app = createGateway({ routes: { m: target('anthropic_messages', limited) }, authorize });
    const response = await post(app, 'anthropic_messages', 'm', true);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toMatchObject({ type: 'error', error: { message: expect.stringContaining('Slow down') } });
  });

  it.each(DIALECT_IDS)('%s: a connection lost mid-stream ends it with the gateway error frames after the bytes received', async (dialect) => {
    const finishes: GatewayFinish[] = [];
    const text = RECORDED[dialect].text;
    // Cut inside the answer: after the first frame's content, before the end.
    const cut = text.slice(0, Math.floor(text.length * 0.6));
    const app = createGateway({ routes: { m: target(dialect, streaming(dialect, cut, undefined, new Error('socket hang up'))) }, authorize, onFinish: (finish) => void finishes.push(finish) });
    const response = await post(app, dialect, 'm', true, dialect === 'openai_completions' ? USAGE : undefined);
    expect(response.status).toBe(200);
    const body = await response.text();
    expect(body.startsWith(cut)).toBe(true);
    expect(body.slice(cut.length)).toMatch(/socket hang up/);
    expect(finishes.at(-1)?.error?.code).toBe('network');
  });
});
