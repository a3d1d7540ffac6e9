/**
 * The AI SDK's UI message stream, served over Parlance runs: `useChat` (with its default
 * `DefaultChatTransport`) talks to these routes unchanged.
 *
 *   POST {mount}                    DefaultChatTransport's body (id, messages, trigger, messageId)
 *                                   -> SSE of UI message chunks, header x-vercel-ai-ui-message-stream: v1
 *   GET  {mount}/:chatId/stream     resume (`useChat({ resume: true })`): the chat's latest UI message from
 *                                   the first event of its first run (every run of a turn that paused and
 *                                   went on, in order), then live if it still runs; 204 when there is none
 *
 * Mount it where `useChat` posts by default: `app.route('/api/chat', createAiSdkRoutes(options))`.
 */
import { type ChatRequestBody, createThread, type Message } from '@parlance/protocol';
import { type Context, Hono } from 'hono';
import type { UIMessage } from 'ai';
import * as z from 'zod/mini';
import { jsonOf } from '../edge/json-body.ts';
import { errorResponse } from '../error-response.ts';
import { type RunStore, type StoredEvent, storeUnavailable } from '../run-store.ts';
import { DEFAULT_HEARTBEAT_MS, SSE_HEADERS } from '../sse.ts';
import { type Caller, createFrontendRuns, frontendErrorHandler, type FrontendRouteOptions, type OpenedRun } from './frontend-runs.ts';
import { frameStream } from './frontend-stream.ts';
import { createUiChunkMapper, type ParlanceUiChunk, type UiChunkMapper } from './ui-message-chunks.ts';
import { uiMessagesToThread } from './ui-messages.ts';

/**
 * Options of `createAiSdkRoutes`: the Parlance server's options, plus how long a run outlives its reader.
 *
 * @example
 * app.route('/api/ai', createAiSdkRoutes({ models: catalogModels(['openai:gpt-5-mini']), run: engineRunner() }));
 */
export interface AiSdkRoutesOptions extends FrontendRouteOptions {
  /**
   * How long a run goes on after its reader went away before it is cancelled (default 3000 ms).
   * `useChat`'s `stop()` only closes the connection, so this is what stops the model; a reload
   * that resumes within this time keeps the run going. 0 cancels at once (no resume after a reload).
   */
  cancelAbandonedAfterMs?: number;
}

const bodySchema = z.looseObject({
  id: z.string().check(z.minLength(1), z.maxLength(200)),
  messages: z.array(
    z.looseObject({
      id: z.string().check(z.minLength(1), z.maxLength(200)),
      role: z.enum(['system', 'user', 'assistant']),
      parts: z.array(z.looseObject({ type: z.string() })),
      metadata: z.optional(z.unknown()),
    }),
  ).check(z.minLength(1)),
  trigger: z.optional(z.enum(['submit-message', 'regenerate-message'])),
  messageId: z.optional(z.string()),
  /** A model id the server offers (a `body` field of the transport). */
  model: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
});

/** A chat's current UI message: the runs it is made of, oldest first (the last is the live one). */
interface ActiveRun {
  runIds: string[];
  messageId: string;
  /** What the UI message held before its first run (none, unless the server lost the earlier runs). */
  prior: Message[];
  /** Calls denied in any request of the turn. */
  denied: string[];
  /** The last reader to attach, on any instance: see `onAbandon`. */
  reader?: string;
}

/**
 * How many chats' latest UI messages a route kept for resuming when it kept them in its own process.
 * The chat -> run map now lives in the run store (`setValue`), bounded there: by `maxValueBytes` in
 * the memory store (the oldest dropped first), by a TTL of `maxRunMs + retainMs` in Redis and Durable
 * Objects. Kept so existing imports still work; nothing reads it.
 *
 * @deprecated Nothing reads it: bound the chat -> run map with the run store's `maxValueBytes`.
 * @example
 * console.log(AI_SDK_MAX_TRACKED_CHATS); // 10000
 */
export const AI_SDK_MAX_TRACKED_CHATS = 10_000;

/**
 * The chat -> UI message map, in the run store: any instance resumes any chat (no sticky routing).
 * Kept as long as a run may go on and then be resumed.
 */
function createChatPointers(store: RunStore) {
  const ttlMs = store.limits.maxRunMs + store.limits.retainMs;
  const name = (key: string) => `ai-sdk-chat:${key}`;
  const read = async (key: string): Promise<{ raw: string; run: ActiveRun } | undefined> => {
    const raw = await store.getValue(name(key)).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    return raw === undefined ? undefined : { raw, run: JSON.parse(raw) as ActiveRun };
  };
  return {
    set: (key: string, run: ActiveRun) =>
      store.setValue(name(key), JSON.stringify(run), ttlMs).catch((error: unknown) => {
        throw storeUnavailable(error);
      }),
    get: async (key: string) => (await read(key))?.run,
    /** Forgets the chat's message if its live run is still `runId` (another request may have started a newer one since). */
    async clear(key: string, runId: string) {
      const found = await read(key);
      if (found?.run.runIds.at(-1) === runId) await store.deleteValue(name(key), found.raw);
    },
  };
}

const HEADERS = { ...SSE_HEADERS, 'x-vercel-ai-ui-message-stream': 'v1' };
const encoder = new TextEncoder();
const frame = (chunk: ParlanceUiChunk | '[DONE]') => encoder.encode(`data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`);

/**
 * Routes that speak the AI SDK's UI message stream protocol over Parlance runs: the same runner,
 * store and checks as `createParlanceApp` with the same options (signed tool calls, no client
 * system messages, `authorize`, Origin and content type). Tool calls, results and pauses keep
 * their signatures in the UI message's metadata, so the next request verifies.
 *
 * @example
 * ```ts
 * import { createAiSdkRoutes } from '@parlance/server/frontends';
 * const options = { models, run: engineRunner({ engine: { tools } }), store };
 * app.route('/api/chat', createAiSdkRoutes(options)); // useChat() posts here by default
 * ```
 */
export function createAiSdkRoutes(options: AiSdkRoutesOptions): Hono<any, any, any> {
  const runs = createFrontendRuns(options);
  const app = options.basePath ? new Hono().basePath(options.basePath) : new Hono();
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
  const graceMs = options.cancelAbandonedAfterMs ?? 3_000;
  // The chat's current UI message, by principal and chat id: the AI SDK's resume convention needs the
  // server to remember it. It lives in the run store, so any instance can resume any chat.
  const chats = createChatPointers(runs.store);
  // Readers attached to each run in this process: a run is cancelled only when the last one left and none
  // came back in time, here or on another instance (each reader marks itself in the store; see onAbandon).
  const readers = new Map<string, number>();
  const attach = (runId: string, delta: number) => {
    const count = (readers.get(runId) ?? 0) + delta;
    if (count > 0) readers.set(runId, count);
    else readers.delete(runId);
  };
  const keyOf = (caller: Caller, chatId: string) => JSON.stringify([caller.principal?.id ?? null, chatId]);

  /** Streams `opened` (the runs of one UI message, oldest first) through one mapper; the last run is the live one. */
  async function stream(c: Context, caller: Caller, key: string, run: ActiveRun, opened: OpenedRun[], mapper: UiChunkMapper): Promise<Response> {
    const live = opened.at(-1)!;
    attach(live.runId, 1);
    // This reader's mark in the store: an instance whose reader left cancels only if no reader came since.
    // A store that cannot take it costs only a resume after a reload; the stream goes out.
    const reader = crypto.randomUUID();
    await chats.set(key, { ...run, reader }).catch((error: unknown) => options.onError?.(error, { runId: live.runId }));
    let attached = true;
    const detach = () => {
      if (attached) attach(live.runId, -1);
      attached = false;
    };
    // A run that continues a paused one continues its UI message: the same mapper, no second `start`.
    async function* events(signal: AbortSignal): AsyncIterable<StoredEvent> {
      for (let i = 0; i < opened.length; i++) {
        if (i > 0) mapper.nextRun();
        yield* opened[i]!.events(signal);
      }
    }
    return frameStream(events, {
      encode: ({ event }) => mapper.push(event).map(frame),
      end: () => [frame('[DONE]')],
      failure: (error) => [frame({ type: 'error', errorText: error.message }), frame('[DONE]')],
      heartbeat: encoder.encode(': ping\n\n'),
      heartbeatMs,
      headers: { ...HEADERS, 'X-Parlance-Run-Id': live.runId },
      // Delivered is not received: the last frames may sit in the browser's buffers when the page
      // reloads, so the chat's message stays replayable until the chat's next request replaces it.
      onDelivered: detach,
      onAbandon: () => {
        detach();
        const cancel = async () => {
          if (readers.has(live.runId)) return;
          // A reader that attached since on any instance (a reload routed elsewhere) keeps the run going.
          const current = await chats.get(key);
          if (current && current.runIds.at(-1) === live.runId && current.reader !== reader) return;
          await runs.cancel(c, caller, live.runId);
        };
        const report = (error: unknown) => options.onError?.(error, { runId: live.runId });
        if (graceMs <= 0) cancel().catch(report);
        else setTimeout(() => cancel().catch(report), graceMs);
      },
      onError: (error) => {
        detach();
        options.onError?.(error, { runId: live.runId });
      },
    });
  }

  app.post('/', runs.edge, async (c) => {
    const caller = runs.callerOf(c);
    const json = jsonOf(c);
    const parsed = bodySchema.safeParse(json);
    if (!parsed.success) return errorResponse(400, 'invalid_request', 'The request body is invalid', parsed.error.issues);
    const body = parsed.data;
    const conversation = uiMessagesToThread(body.messages as unknown as UIMessage[], body.id);
    const request: ChatRequestBody = { thread: createThread(body.id, conversation.messages), clientRequestId: crypto.randomUUID() };
    if (conversation.resume) request.resume = conversation.resume;
    if (body.model) request.model = body.model;
    const opened = await runs.start(c, caller, request);
    if (opened instanceof Response) return opened;
    const key = keyOf(caller, body.id);
    const continued = conversation.continued;
    const before = await chats.get(key).catch(() => undefined);
    // A run that answers a pause continues the UI message: a resume replays the message's earlier runs first.
    const chained = continued && before?.messageId === continued.messageId ? before : undefined;
    const run: ActiveRun = {
      runIds: [...(chained?.runIds ?? []), opened.runId],
      messageId: continued?.messageId ?? `msg_${opened.runId}`,
      prior: chained ? chained.prior : (continued?.prior ?? []),
      denied: [...(chained?.denied ?? []), ...conversation.denied],
    };
    const mapper = createUiChunkMapper({ messageId: run.messageId, threadId: body.id, prior: continued?.prior ?? [], denied: conversation.denied });
    return stream(c, caller, key, run, [opened], mapper);
  });

  app.get('/:chatId/stream', runs.edge, async (c) => {
    const caller = runs.callerOf(c);
    const chatId = c.req.param('chatId');
    const key = keyOf(caller, chatId);
    const run = await chats.get(key);
    if (!run) return c.body(null, 204);
    const opened: OpenedRun[] = [];
    for (const runId of run.runIds) {
      const one = await runs.reopen(c, caller, runId);
      if (!(one instanceof Response)) opened.push(one);
      else if (one.status !== 404 && one.status !== 410) return one;
      // An earlier run the store no longer holds (retainMs, or evicted: run_expired) is left out.
    }
    if (opened.at(-1)?.runId !== run.runIds.at(-1)) {
      await chats.clear(key, run.runIds.at(-1)!);
      return c.body(null, 204);
    }
    const mapper = createUiChunkMapper({ messageId: run.messageId, threadId: chatId, prior: run.prior, denied: run.denied });
    return stream(c, caller, key, run, opened, mapper);
  });

  app.notFound(() => errorResponse(404, 'not_found', 'No such route'));
  app.onError(frontendErrorHandler(options));
  return app;
}
