/**
 * The transport against a real local server that misbehaves the ways providers do:
 * rate limits, server errors, bad keys, resets mid-stream, silence, and a caller who
 * gives up. Delays are measured through an injected sleep, never by the wall clock.
 */
import { decodeText } from '@parlance/dialects';
import { collectResponse, messageText, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropic, groq } from '../../src/providers/index.ts';
import { ask, drain } from '../helpers.ts';
import { fixture, replay, replayThenReset, sendJson, serverPerTest, type Handler } from './server.ts';

const KEY = 'gsk_test_0123456789abcdef';
const GROQ_TEXT = fixture('openai_completions', 'omni__groq_text.sse');
const FULL_TEXT = (() => {
  let text = '';
  for (const event of decodeText('openai_completions', GROQ_TEXT.bytes)) if (event.type === 'text-delta') text += event.delta;
  return text;
})();
const request = { messages: ask('Hi') };

const serve = serverPerTest();

async function setup(handler: Handler, settings: Parameters<typeof groq.model>[1] = {}) {
  const server = await serve(handler);
  const delays: number[] = [];
  const model = groq.model('llama-3.3-70b-versatile', {
    baseURL: server.url,
    apiKey: KEY,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0,
    ...settings,
  });
  return { model, delays, server };
}

describe('transport faults', () => {
  it('retries a 429 once, after exactly the Retry-After delay', async () => {
    const { model, delays, server } = await setup((_req, res, index) => {
      if (index === 0) sendJson(res, 429, { error: { message: 'Rate limit reached', type: 'requests' } }, { 'retry-after': '2' });
      else return replay(res, GROQ_TEXT);
    });
    const response = await collectResponse(model.stream(request));
    expect(server.requests).toHaveLength(2);
    expect(delays).toEqual([2000]);
    expect(response.finishReason).toBe('stop');
    expect(messageText(response.message)).toBe(FULL_TEXT);
  });

  it('retries a 500 with backoff, then streams', async () => {
    const { model, delays, server } = await setup((_req, res, index) => {
      if (index === 0) sendJson(res, 500, { error: { message: 'Internal error' } });
      else return replay(res, GROQ_TEXT);
    });
    const response = await collectResponse(model.stream(request));
    expect(server.requests).toHaveLength(2);
    // The first backoff step (500 ms), with the jitter source pinned at 0.
    expect(delays).toEqual([500]);
    expect(messageText(response.message)).toBe(FULL_TEXT);
    expect(response.error).toBeUndefined();
  });

  it('gives up after maxRetries and reports the last error with its status', async () => {
    const { model, delays, server } = await setup(
      (_req, res) => sendJson(res, 503, { error: { message: 'Service unavailable' } }),
      { retry: { maxRetries: 2, initialDelayMs: 100 } },
    );
    const events = await drain(model.stream(request));
    expect(server.requests).toHaveLength(3);
    expect(delays).toEqual([100, 200]);
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ code: 'overloaded', status: 503, retryable: true });
    expect(error && 'message' in error && error.message).toContain('Service unavailable');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it('does not retry a 401 and reports authentication with the provider message', async () => {
    const { model, delays, server } = await setup((_req, res) =>
      sendJson(res, 401, { error: { message: 'Invalid API Key', type: 'invalid_request_error', code: 'invalid_api_key' } }),
    );
    const events = await drain(model.stream(request));
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(events.map((e) => e.type)).toEqual(['message-start', 'error', 'finish']);
    expect(events[1]).toMatchObject({ type: 'error', code: 'authentication', status: 401, retryable: false });
    expect((events[1] as { message: string }).message).toBe('Groq returned HTTP 401: Invalid API Key');
  });

  it('keeps the partial text and reports a network error when the connection resets mid-stream, without retrying', async () => {
    const { model, server } = await setup((_req, res) => replayThenReset(res, GROQ_TEXT, 0.5));
    const events = await drain(model.stream(request));
    expect(server.requests).toHaveLength(1);
    const response = await collectResponse(events);
    const text = messageText(response.message);
    expect(text.length).toBeGreaterThan(0);
    expect(FULL_TEXT.startsWith(text)).toBe(true);
    expect(text.length).toBeLessThan(FULL_TEXT.length);
    expect(response.finishReason).toBe('error');
    expect(response.error?.code).toBe('network');
  });

  it('times out when the first byte never comes, retrying first (nothing was delivered)', async () => {
    const { model, delays, server } = await setup(
      (_req, res) => {
        // Headers go out, the body never starts.
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.flushHeaders();
      },
      { timeouts: { firstByteMs: 250 }, retry: { maxRetries: 1 } },
    );
    const events = await drain(model.stream(request));
    expect(server.requests).toHaveLength(2);
    expect(delays).toHaveLength(1);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'timeout', retryable: true });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it('times out on silence between chunks, keeping what arrived, and never retries', async () => {
    const { model, server } = await setup(
      async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const frame of GROQ_TEXT.frames.slice(0, 4)) res.write(frame);
        // ...then nothing, with the connection open.
      },
      { timeouts: { idleMs: 80 } },
    );
    const events = await drain(model.stream(request));
    expect(server.requests).toHaveLength(1);
    const response = await collectResponse(events);
    expect(messageText(response.message).length).toBeGreaterThan(0);
    expect(response.error?.code).toBe('timeout');
    // The transport closed the upstream request it gave up on.
    expect(await server.requests[0]!.closed).toEqual({ finished: false });
  });

  it('measures silence from each read: chunks 40 ms apart under an 80 ms idle timeout go on for 8 chunks, and a reader that pauses is not an idle upstream', async () => {
    const { model } = await setup(
      async (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (const frame of GROQ_TEXT.frames) {
          res.write(frame);
          await new Promise((resolve) => setTimeout(resolve, 40));
        }
        res.end();
      },
      { timeouts: { idleMs: 80 } },
    );
    const events: Event[] = [];
    for await (const event of model.stream(request)) {
      events.push(event);
      // The reader stops reading for longer than the idle timeout now and then.
      if (events.length === 2) await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const response = await collectResponse(events);
    expect(response.error).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
    expect(GROQ_TEXT.frames.length).toBeGreaterThanOrEqual(8);
  });

  it('cancels the upstream request when the caller aborts mid-stream, ending with aborted', async () => {
    const controller = new AbortController();
    const { model, server } = await setup(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of GROQ_TEXT.frames.slice(0, 3)) res.write(frame);
      // Keep the stream open until the client goes away.
    });
    const events: Event[] = [];
    for await (const event of model.stream(request, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(await server.requests[0]!.closed).toEqual({ finished: false });
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'aborted', retryable: false });
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'cancelled' });
    expect(server.requests).toHaveLength(1);
  });

  it('a stopped stream finishes with the usage the provider reported before the stop (Anthropic: the input count in message_start)', async () => {
    const recorded = fixture('anthropic_messages', 'omni__anthropic_text.sse');
    const server = await serve(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const frame of recorded.frames.slice(0, 4)) res.write(frame);
      // Keep the stream open until the client goes away.
    });
    const model = anthropic.model('claude-haiku-4-5', { baseURL: server.url, apiKey: 'sk-ant-test-0123456789' });
    const controller = new AbortController();
    const events: Event[] = [];
    for await (const event of model.stream(request, { signal: controller.signal })) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: 'cancelled', usage: { inputTokens: 18, outputTokens: 1 } });
    expect((events.at(-1) as { usage: { cost?: number } }).usage.cost).toBeGreaterThan(0);
  });

  it('cancels during the Retry-After wait when the caller aborts', async () => {
    const controller = new AbortController();
    const { model, server } = await setup(
      (_req, res) => sendJson(res, 429, { error: { message: 'slow down' } }, { 'retry-after': '1' }),
      {
        sleep: (_ms, signal) =>
          new Promise((_resolve, reject) => {
            signal?.addEventListener('abort', () => reject(signal.reason));
            controller.abort();
          }),
      },
    );
    const events = await drain(model.stream(request, { signal: controller.signal }));
    expect(server.requests).toHaveLength(1);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'aborted' });
  });

  it('returns a Retry-After longer than the cap to the caller instead of waiting', async () => {
    const { model, delays, server } = await setup((_req, res) =>
      sendJson(res, 429, { error: { message: 'Try tomorrow' } }, { 'retry-after': '3600' }),
    );
    const events = await drain(model.stream(request));
    expect(server.requests).toHaveLength(1);
    expect(delays).toEqual([]);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'rate_limited', status: 429 });
  });

  it('does not retry when the server says x-should-retry: false', async () => {
    const { model, server } = await setup((_req, res) =>
      sendJson(res, 500, { error: { message: 'Do not retry' } }, { 'x-should-retry': 'false' }),
    );
    await drain(model.stream(request));
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as a network error after retrying', async () => {
    const { model, delays, server } = await setup((_req, res) => replay(res, GROQ_TEXT));
    await server.close();
    const events = await drain(model.stream(request));
    expect(delays).toHaveLength(2);
    expect(events.find((e) => e.type === 'error')).toMatchObject({ code: 'network', retryable: true });
  });
});
