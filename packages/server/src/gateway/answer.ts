/**
 * Answering one gateway call: the provider's events, with the caller's view of reasoning state
 * applied, encoded in the caller's format, streamed or as one body; an upstream failure before
 * any content becomes the caller's HTTP error.
 */
import type { Dialect, DialectId } from '@parlance/dialects';
import {
  collectResponse,
  type ErrorCode,
  type ErrorEvent,
  type Event,
  type FinishReason,
  type LanguageModel,
  type ModelCallOptions,
  type ModelRequest,
  type Provenance,
  type ReadyIterator,
  takeReady,
  type Usage,
} from '@parlance/protocol';
import { type ByteRelay, createByteRelay, sentBy } from './byte-relay.ts';
import { createSealer } from './envelope.ts';
import type { GatewayPrincipal } from './keys.ts';
import type { GatewayFinish, GatewayOptions } from './options.ts';

/** Events that carry no answer yet: an upstream failure before any content becomes an HTTP error. */
const PREAMBLE = new Set<Event['type']>(['message-start', 'usage']);

export const RESPONSE_ID_PREFIX: Record<DialectId, string> = {
  openai_completions: 'chatcmpl-',
  openai_responses: 'resp_',
  anthropic_messages: 'msg_',
  google_gemini: '',
  ollama_chat: '',
};

/** A caller-chosen name as echoed in an error message: bounded, so a huge name is not sent back whole. */
export function shown(name: string): string {
  return name.length > 200 ? `${name.slice(0, 200)}…` : name;
}

export function errorResponse(dialect: Dialect, code: ErrorCode, message: string, status?: number, headers: Record<string, string> = {}): Response {
  const encoded = dialect.encodeError(status === undefined ? { code, message } : { code, message, status });
  return new Response(encoded.body, { status: encoded.status, headers: { ...encoded.headers, ...headers } });
}

function statusOf(error: { code: ErrorCode; status?: number | undefined }): number | undefined {
  // The caller's provider picks the status for a code; a known upstream status is kept.
  return error.status !== undefined && error.status >= 400 ? error.status : undefined;
}

/**
 * The upstream's failure in the caller's format, with the provider's own Retry-After when it sent one
 * (`retry-after` in seconds, as every SDK reads it, and `retry-after-ms` for the OpenAI and Anthropic SDKs,
 * which prefer it); none is invented when the provider sent none.
 */
export function upstreamError(dialect: Dialect, error: ErrorEvent): Response {
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs) && error.retryAfterMs >= 0) {
    headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
    headers['retry-after-ms'] = String(Math.round(error.retryAfterMs));
  }
  return errorResponse(dialect, error.code, error.message, statusOf(error), headers);
}

export interface Call {
  dialect: Dialect;
  principal: GatewayPrincipal;
  name: string;
  model: LanguageModel;
  request: ModelRequest;
  stream: boolean;
  /** Chat Completions: the caller asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage: boolean;
  signal: AbortSignal;
  started: number;
  /** The caller-facing response id (default: a fresh one with the caller's prefix). */
  responseId?: string;
  /** Keeps the answer's events once it ended well (Responses state; the events are held until then). */
  keep?: { name: (event: Event) => Event; done: (events: Event[]) => void };
  /**
   * Counts the call's cost (spend budgets) before its answer ends, so the key's next call sees it,
   * on any instance. Must not throw.
   */
  account?: (finish: GatewayFinish) => Promise<void>;
}

/** What the report needs from a stream, kept as events pass (a long answer's deltas are not kept). */
interface Tally {
  usage: Usage;
  finishReason?: FinishReason;
  provenance?: { provider: string; model: string; dialect: string };
}

function tally(into: Tally, event: Event): void {
  if (event.type === 'usage' || event.type === 'finish') into.usage = { ...into.usage, ...event.usage };
  if (event.type === 'finish') into.finishReason = event.finishReason;
  // The model that answered says so in its message-start (a fallback chain may have moved on).
  else if (event.type === 'message-start' && event.provenance) into.provenance = event.provenance;
}

function finishOf(call: Call, seen: Tally, error: ErrorEvent | undefined): GatewayFinish {
  const answered = seen.provenance ?? { provider: call.model.provider, model: call.model.modelId, dialect: call.model.dialect };
  const out: GatewayFinish = {
    principal: call.principal,
    model: call.name,
    provider: answered.provider,
    providerModel: answered.model,
    dialect: call.dialect.id,
    upstreamDialect: answered.dialect,
    stream: call.stream,
    finishReason: seen.finishReason ?? (error ? 'error' : 'other'),
    usage: seen.usage,
    durationMs: Date.now() - call.started,
  };
  if (error) out.error = { code: error.code, message: error.message };
  return out;
}

/** A provider's whole JSON body, as the model that sent it reported it (`ModelCallOptions.onBody`). */
interface UpstreamBody {
  body: unknown;
  from: Provenance;
}

/**
 * Runs the call: the events, with the caller's view of reasoning state applied. A caller who asked
 * for one body makes the provider send one (`stream: false`), and the body is kept in `into`.
 * A hand-written iterator rather than an async generator: a generator's `yield*` over each
 * event's sealed array costs a resumption and a promise per event, on every delta of a stream.
 */
function upstream(call: Call, into: { last?: UpstreamBody; relay?: ByteRelay }): ReadyIterator<Event> {
  const { model: _model, ...request } = call.request;
  const sealer = createSealer(call.dialect.id);
  const name = call.keep?.name;
  const relay = into.relay;
  const options: ModelCallOptions = !call.stream
    ? { signal: call.signal, stream: false, onBody: (body, from) => (into.last = { body, from }) }
    : relay
      ? { signal: call.signal, onBytes: relay.see, relayDialect: call.dialect.id }
      : { signal: call.signal };
  const source = call.model.stream(request, options)[Symbol.asyncIterator]();
  // Named after sealing: the sealer tells foreign state by the caller's dialect key, which naming adds.
  const named = (events: Event[]) => (name ? events.map(name) : events);
  let queue: Event[] = [];
  let index = 0;
  let ended = false;
  const iterator: ReadyIterator<Event> = {
    // What the model already decoded (the rest of one upstream read), sealed, without a promise per event.
    takeReady() {
      for (;;) {
        if (index < queue.length) return queue[index++]!;
        if (ended) return undefined;
        const event = takeReady(source);
        if (event === undefined) return undefined;
        queue = named(sealer.push(event));
        index = 0;
      }
    },
    async next() {
      for (;;) {
        if (index < queue.length) return { done: false, value: queue[index++]! };
        if (ended) return { done: true, value: undefined };
        const next = await source.next();
        queue = next.done ? named(sealer.flush()) : named(sealer.push(next.value));
        index = 0;
        if (next.done) ended = true;
      }
    },
    async return() {
      ended = true;
      queue = [];
      await source.return?.(undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/** At most this many events, or this long, are held back waiting for the upstream's input count. */
const HOLD_EVENTS = 64;
const HOLD_MS = 250;

/**
 * Anthropic's `message_start` carries the prompt's token count, and clients read it there only
 * (LangChain's ChatAnthropic counts `input_tokens: 0` from `message_delta`). Upstreams that report
 * usage after the first content (Gemini in the same chunk, Chat Completions, Responses and
 * Ollama at the end) are held for the count, bounded by `HOLD_EVENTS` events and `HOLD_MS`: a
 * short answer starts with the count, a long one starts on time with what is known (the
 * closing `message_delta` always has the whole count, as Anthropic's does).
 */
async function holdForInputCount(call: Call, held: Event[], take: () => Promise<IteratorResult<Event>>, counts: Tally): Promise<void> {
  if (call.dialect.id !== 'anthropic_messages' || held.at(-1)?.type === 'error') return;
  const since = Date.now();
  for (let n = 0; counts.usage.inputTokens === undefined && n < HOLD_EVENTS && Date.now() - since < HOLD_MS; n++) {
    const next = await take();
    if (next.done) return;
    held.push(next.value);
    if (next.value.type === 'error' || next.value.type === 'finish') return;
  }
}

/**
 * The provider's body, for the caller to get unchanged, when nothing in it needs translating:
 * - the caller's API is the one the answering model speaks (else the body is re-encoded in the caller's);
 * - the answer is not kept for Responses state (kept items are named by the gateway's response id);
 * - the body came from the model that answered, known by its provenance (a fallback chain's earlier model may
 *   have sent one, and a model of the app's own reports none).
 * The model name and response id are then the provider's, as they are for same-format streams.
 * Everything else holds as for a re-encoded body: usage and cost are counted from the decoded events
 * (`onFinish`), failures are never passed through (they are re-encoded with credentials removed),
 * and the body is the provider's JSON as parsed, so every field the protocol has no form for
 * (`system_fingerprint`, `logprobs`, `service_tier`, safety ratings, ...) reaches the caller too.
 */
function passThrough(call: Call, last: UpstreamBody | undefined, seen: Tally): unknown {
  if (!last || call.responseId !== undefined || last.from.dialect !== call.dialect.id) return undefined;
  return sentBy(seen.provenance, last.from) ? last.body : undefined;
}

/**
 * Whether a stream may be the provider's bytes unchanged, on the same terms as a body
 * (`passThrough`): not kept for Responses state, and for Chat Completions only when the caller
 * asked for the usage chunk (the upstream is always asked for it, to count usage). Whether the
 * bytes are in the caller's format and from the model that answered is known once it answers.
 */
function relayable(call: Call): boolean {
  return call.stream && call.responseId === undefined && call.keep === undefined && call.includeUsage;
}

/** A fresh caller-facing response id, with the prefix the caller's provider uses. */
export function newResponseId(dialect: DialectId): string {
  return RESPONSE_ID_PREFIX[dialect] + crypto.randomUUID().replace(/-/g, '');
}

export async function answer(call: Call, options: GatewayOptions): Promise<Response> {
  const encoderOptions = { model: call.name, responseId: call.responseId ?? newResponseId(call.dialect.id), created: Math.floor(call.started / 1000) };
  const received: { last?: UpstreamBody; relay?: ByteRelay } = relayable(call) ? { relay: createByteRelay(call.dialect.id) } : {};
  const iterator = upstream(call, received);
  const counts: Tally = { usage: {} };
  const kept: Event[] | undefined = call.keep ? [] : undefined;
  const report = async (error: ErrorEvent | undefined) => {
    if (kept && !error && counts.finishReason !== undefined && counts.finishReason !== 'error' && counts.finishReason !== 'cancelled') call.keep!.done(kept);
    if (!options.onFinish && !call.account) return;
    const finish = finishOf(call, counts, error);
    if (call.account) await call.account(finish);
    if (options.onFinish) Promise.resolve(options.onFinish(finish)).catch(() => {});
  };
  const seen = (next: IteratorResult<Event>): IteratorResult<Event> => {
    if (!next.done) {
      tally(counts, next.value);
      kept?.push(next.value);
    }
    return next;
  };
  const take = (): Promise<IteratorResult<Event>> => iterator.next().then(seen);
  /** The next event when it is already decoded (no promise), else undefined: then `take()`. */
  const ready = (): IteratorResult<Event> | undefined => {
    const event = iterator.takeReady();
    return event === undefined ? undefined : seen({ done: false, value: event });
  };
  // Hold the preamble until the answer starts: a failure before any content is an HTTP error.
  const preamble: Event[] = [];
  for (;;) {
    const next = await take();
    if (next.done) break;
    preamble.push(next.value);
    if (next.value.type === 'error') {
      await report(next.value);
      await iterator.return?.(undefined);
      return upstreamError(call.dialect, next.value);
    }
    if (!PREAMBLE.has(next.value.type)) break;
  }

  // Same format: the provider's own response id and model reach the caller, as they would
  // straight from the provider (users match them against the provider's logs); across formats
  // (or for a kept Responses answer, whose items name our id) the caller sees the route's.
  const start = preamble.find((event): event is Extract<Event, { type: 'message-start' }> => event.type === 'message-start');
  if (start && call.responseId === undefined && (counts.provenance?.dialect ?? call.model.dialect) === call.dialect.id) {
    if (start.responseId) encoderOptions.responseId = start.responseId;
    if (start.model) encoderOptions.model = start.model;
  }

  if (!call.stream) {
    const events = preamble;
    for (;;) {
      const next = ready() ?? (await take());
      if (next.done) break;
      events.push(next.value);
    }
    const error = events.find((event): event is ErrorEvent => event.type === 'error');
    await report(error);
    if (error) return upstreamError(call.dialect, error);
    const passed = passThrough(call, received.last, counts);
    if (passed !== undefined) return Response.json(passed);
    const collected = await collectResponse(events);
    return Response.json(call.dialect.encodeResponse({ ...collected, usage: counts.usage }, { ...encoderOptions, usage: counts.usage }));
  }

  const relay = received.relay;
  if (relay?.answers(counts.provenance)) {
    const failFrames = (error: ErrorEvent) =>
      call.dialect.createResponseEncoder({ ...encoderOptions, usage: counts.usage, includeUsage: call.includeUsage }).error({ code: error.code, message: error.message });
    return relayed(call, relay, { take, ready, report, close: () => iterator.return?.(undefined), failFrames });
  }
  relay?.stop();
  await holdForInputCount(call, preamble, take, counts);
  const encoder = call.dialect.createResponseEncoder({ ...encoderOptions, usage: counts.usage, includeUsage: call.includeUsage });
  const bytes = new TextEncoder();
  let queued = preamble;
  let failed: ErrorEvent | undefined;
  let closed = false;
  const framesOf = (event: Event): string[] => {
    if (event.type === 'error') {
      failed = event;
      return encoder.error({ code: event.code, message: event.message });
    }
    // After a failure the caller's provider sends nothing more.
    if (failed) return [];
    return encoder.push(event);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const pending = queued;
            queued = [];
            // Concatenated as they come (no array of arrays per read, as flatMap and join would build).
            let text = '';
            for (const event of pending) for (const frame of framesOf(event)) text += frame;
            if (text !== '') {
              controller.enqueue(bytes.encode(text));
              return;
            }
            const next = ready() ?? (await take());
            if (next.done) {
              const tail = failed ? '' : encoder.end().join('');
              if (tail !== '') controller.enqueue(bytes.encode(tail));
              closed = true;
              await report(failed);
              controller.close();
              return;
            }
            queued.push(next.value);
            // With it, what else is already decoded (the rest of that upstream read, so bounded by one read):
            // one chunk, one write to the caller, rather than one per delta.
            for (let more = ready(); more !== undefined && !more.done; more = ready()) queued.push(more.value);
          }
        } catch (error) {
          closed = true;
          await report(failed);
          controller.error(error);
        }
      },
      async cancel() {
        if (!closed) await report(failed);
        closed = true;
        await iterator.return?.(undefined);
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': call.dialect.streamContentType, 'cache-control': 'no-cache' } });
}


interface RelaySource {
  take: () => Promise<IteratorResult<Event>>;
  /** The next event when already decoded, else undefined (then `take`). */
  ready: () => IteratorResult<Event> | undefined;
  report: (error: ErrorEvent | undefined) => Promise<void>;
  close: () => Promise<unknown> | undefined;
  /** The gateway's own error frames in the caller's format (as a re-encoded stream ends on a failure). */
  failFrames: (error: ErrorEvent) => string[];
}

/**
 * A same-format stream as the provider sent it: its bytes are forwarded unchanged, while the
 * events decoded from them still feed usage, the finish and `onFinish` (through `take`). A failure
 * after the answer started ends the stream as a re-encoded one does, with the gateway's error frames
 * (credentials removed) after the bytes received up to it (a provider's own error frame among them
 * comes first, and is what the caller's SDK reports); a partly sent frame is closed first.
 */
function relayed(call: Call, relay: ByteRelay, source: RelaySource): Response {
  const bytes = new TextEncoder();
  const separator = call.dialect.framing === 'sse' ? '\n\n' : '\n';
  let last = separator;
  let failed: ErrorEvent | undefined;
  let closed = false;
  const forward = (controller: ReadableStreamDefaultController<Uint8Array>, chunks: Uint8Array[]) => {
    for (const chunk of chunks) controller.enqueue(chunk);
    last = (last + String.fromCharCode(...chunks.at(-1)!.subarray(-2))).slice(-2);
  };
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          for (;;) {
            const chunks = relay.take();
            if (chunks.length > 0) {
              forward(controller, chunks);
              return;
            }
            const next = source.ready() ?? (await source.take());
            if (next.done) {
              // After a failure the caller's provider sends nothing more: the gateway's error frames end it.
              if (failed) controller.enqueue(bytes.encode((last.endsWith(separator) ? '' : separator) + source.failFrames(failed).join('')));
              closed = true;
              await source.report(failed);
              controller.close();
              return;
            }
            if (next.value.type === 'error' && !failed) {
              failed = next.value;
              // What was read up to the failure is sent; nothing read after it.
              const tail = relay.take();
              relay.stop();
              if (tail.length > 0) {
                forward(controller, tail);
                return;
              }
            }
          }
        } catch (error) {
          closed = true;
          await source.report(failed);
          controller.error(error);
        }
      },
      async cancel() {
        if (!closed) await source.report(failed);
        closed = true;
        await source.close();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, { status: 200, headers: { 'content-type': call.dialect.streamContentType, 'cache-control': 'no-cache' } });
}
