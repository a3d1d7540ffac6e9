/**
 * `mockProviderServer`: a web-standard `(request: Request) => Promise<Response>`
 * handler that answers like a provider. Each request gets the next scripted turn, in
 * the dialect's real wire format (the dialect's own response encoders), as a streaming
 * body paced by the script's delays, or as the provider's single JSON body when the
 * request does not ask to stream (as the provider decides it: `stream: true` for OpenAI
 * and Anthropic, `stream: false` for Ollama, the method in the path for Gemini). A test or
 * a demo exercises the whole HTTP and decoding path with no key. It runs wherever
 * `Request`/`Response` exist (Node, workerd, the Vite dev server).
 */
import { getDialect, type DialectId } from '@parlance/dialects';
import { collectResponse } from '@parlance/protocol';
import { turnToEvents, type ScriptedTurn } from '../script.ts';
import { encodeEventFrames, finalUsage, wireContentType, wireHttpError } from '../wire/encode.ts';
import type { WireEncoderOptions } from '../wire/types.ts';
import { routeFor } from './route.ts';

/**
 * One request the mock received.
 *
 * @example
 * expect(anthropic.requests[0]!.headers['x-api-key']).toBe('sk-test');
 */
export interface RecordedRequest {
  method: string;
  url: string;
  /** Path and query. */
  path: string;
  headers: Record<string, string>;
  /** The JSON body, parsed (or the raw text when it is not JSON). */
  body: unknown;
  /** The model, from the body's `model` or (Gemini) the path. */
  model?: string;
}

/**
 * Turns, one per request (the last repeats), or a function of the request and its 0-based number.
 *
 * @example
 * const script: MockScript = (request) => ({ text: request.path.includes('stream') ? 'streamed' : 'whole' });
 */
export type MockScript = ScriptedTurn[] | ((request: RecordedRequest, call: number) => ScriptedTurn);

/**
 * 
 *
 * @example
 * const options: MockProviderServerOptions = { dialect: 'google_gemini', script: (request, call) => ({ text: `call ${call} to ${request.url}` }) };
 */
export interface MockProviderServerOptions {
  dialect: DialectId;
  script: MockScript;
  /** Passed to the wire encoder (model name, response id, Gemini argument streaming). */
  encoder?: WireEncoderOptions;
}

/**
 * 
 *
 * @example
 * const handler = mockProviderServer({ dialect: 'openai_completions', script: [{ text: 'Hi' }] });
 * const response = await handler(new Request('https://api.openai.com/v1/chat/completions', { method: 'POST', body: '{}' }));
 */
export interface MockProviderHandler {
  (request: Request): Promise<Response>;
  /** Every request received, in order (including ones answered with an error). */
  readonly requests: RecordedRequest[];
  /** Forgets the recorded requests and starts the script over. */
  reset(): void;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function readBody(request: Request): Promise<unknown> {
  const text = await request.text();
  if (text === '') return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function turnFor(script: MockScript, request: RecordedRequest, call: number): ScriptedTurn {
  if (typeof script === 'function') return script(request, call);
  const turn = script[Math.min(call, script.length - 1)];
  if (!turn) throw new TypeError('A mock provider script needs at least one turn');
  return turn;
}

function errorResponse(dialect: DialectId, error: Parameters<typeof wireHttpError>[1]): Response {
  const { status, headers, body } = wireHttpError(dialect, error);
  return new Response(body, { status, headers });
}

/** A body that emits each event's frames in turn, waiting the script's delays, until done or aborted. */
function streamFrames(groups: string[][], turn: ScriptedTurn, signal: AbortSignal): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder();
  const stop = new AbortController();
  const onAbort = () => stop.abort(signal.reason);
  signal.addEventListener('abort', onAbort, { once: true });
  let index = 0;
  const finish = () => signal.removeEventListener('abort', onAbort);
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // Loop until a frame is enqueued: a pull that enqueues nothing would stall the reader.
        while (index < groups.length) {
          const isEvent = index < groups.length - 1;
          if (isEvent) await sleep(index === 0 ? (turn.firstEventDelayMs ?? turn.delayMs ?? 0) : (turn.delayMs ?? 0), stop.signal);
          if (stop.signal.aborted) {
            finish();
            controller.error(stop.signal.reason ?? new DOMException('The request was aborted', 'AbortError'));
            return;
          }
          const text = groups[index++]!.join('');
          if (text !== '') {
            controller.enqueue(bytes.encode(text));
            return;
          }
        }
        finish();
        controller.close();
      },
      cancel(reason) {
        stop.abort(reason);
        finish();
      },
    },
    // Produce only when read, so delays are felt by the reader and an abort stops production at once.
    { highWaterMark: 0 },
  );
}

/** Whether the client asked for a stream, the way the provider reads the request. */
function wantsStream(dialect: DialectId, fromPath: boolean | undefined, body: unknown): boolean {
  if (fromPath !== undefined) return fromPath;
  const stream = typeof body === 'object' && body !== null ? (body as { stream?: unknown }).stream : undefined;
  // Ollama streams unless told not to; the OpenAI and Anthropic APIs stream only when asked.
  return dialect === 'ollama_chat' ? stream !== false : stream === true;
}

/**
 * A provider as a fetch handler: answers each request in the dialect's real wire format from a script, and records what it received.
 *
 * @example
 * const anthropic = mockProviderServer({ dialect: 'anthropic_messages', script: [{ text: 'Hello' }] });
 * globalThis.fetch = async (input, init) => anthropic(new Request(input, init));
 */
export function mockProviderServer(options: MockProviderServerOptions): MockProviderHandler {
  const { dialect: dialectId } = options;
  const dialect = getDialect(dialectId);
  const route = routeFor(dialect);
  const requests: RecordedRequest[] = [];
  let calls = 0;

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const body = await readBody(request);
    const matched = request.method === 'POST' ? route.match(url) : undefined;
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    const record: RecordedRequest = { method: request.method, url: request.url, path: url.pathname + url.search, headers, body };
    const bodyModel = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
    const model = typeof bodyModel === 'string' ? bodyModel : matched?.model;
    if (model !== undefined) record.model = model;
    requests.push(record);

    if (!matched) {
      return errorResponse(dialectId, {
        code: 'not_found',
        message: `The mock ${dialectId} provider answers POST ${route.example('<model>')}, not ${request.method} ${record.path}`,
      });
    }
    const call = calls++;
    const turn = turnFor(options.script, record, call);
    const failure = turn.error;
    if (failure && failure.afterEvents === undefined) {
      // An error before any byte: the provider's HTTP error response.
      return errorResponse(dialectId, failure);
    }
    const events = turnToEvents(turn, call);
    if (!wantsStream(dialectId, matched.stream, body)) {
      // The provider's single body; a failure scripted mid-stream becomes its HTTP error.
      if (failure) return errorResponse(dialectId, failure);
      const collected = await collectResponse(events);
      const encoderOptions: WireEncoderOptions = { ...options.encoder };
      if (encoderOptions.model === undefined && model !== undefined) encoderOptions.model = model;
      await sleep(turn.firstEventDelayMs ?? 0, request.signal);
      return Response.json(dialect.encodeResponse({ ...collected, usage: finalUsage(events) }, encoderOptions), { status: 200 });
    }
    const encoderOptions: WireEncoderOptions = { ...options.encoder };
    if (encoderOptions.model === undefined && model !== undefined) encoderOptions.model = model;
    const groups = failure
      ? encodeEventFrames(dialectId, events.slice(0, failure.afterEvents), { ...encoderOptions, error: failure })
      : encodeEventFrames(dialectId, events, encoderOptions);
    return new Response(streamFrames(groups, turn, request.signal), {
      status: 200,
      headers: { 'content-type': wireContentType(dialectId), 'cache-control': 'no-cache' },
    });
  };

  return Object.assign(handler, {
    requests,
    reset() {
      requests.length = 0;
      calls = 0;
    },
  });
}
