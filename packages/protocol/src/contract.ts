/**
 * The HTTP contract between a Parlance server and its clients, spelled once: the server
 * validates requests against these types (its zod schemas are checked against them at
 * compile time), the client transport sends and reads them, and the engine takes the
 * same `ResumeInput`.
 *
 *   POST {api}/chat                 ChatRequestBody -> text/event-stream (header X-Parlance-Run-Id)
 *   GET  {api}/runs/:id/events      Last-Event-ID   -> the same stream after that event, then live
 *   POST {api}/runs/:id/cancel      -> 202 CancelResponseBody; the run ends with chat-finish 'cancelled'
 *   GET  {api}/models               -> ModelsResponseBody
 *   any error before a stream       -> non-2xx ErrorResponseBody (503 and 429 with Retry-After)
 */
import type { ErrorCode } from './error.ts';
import type { Message } from './message.ts';
import type { Thread } from './thread-shape.ts';

/**
 * What the browser sends to continue a paused run: one answer per pending input
 * (see `pendingInputs`), keyed by the tool call it answers.
 *
 * @example
 * ```ts
 * const resume: ResumeInput = { approvals: [{ toolCallId: 'call_1', approved: true }] };
 * ```
 */
export interface ResumeInput {
  /** Results of client tools (`client-tool`). */
  toolResults?: { toolCallId: string; output: unknown; isError?: boolean }[];
  /** Decisions on calls that need approval (`approval`). */
  approvals?: { toolCallId: string; approved: boolean; reason?: string }[];
  /** Answers to the model's questions (`ask-user`). */
  answers?: { toolCallId: string; answer: string }[];
}

/**
 * The body of `POST /chat`. Send `thread` (or bare `messages`), and a fresh
 * `clientRequestId` per user action: a retried POST with the same id joins the run it started.
 *
 * @example
 * ```ts
 * const body: ChatRequestBody = { thread, model: 'anthropic:claude-sonnet-4-5', clientRequestId: crypto.randomUUID() };
 * ```
 */
export interface ChatRequestBody {
  thread?: Thread;
  messages?: Message[];
  /** One of the ids `GET /models` lists (default: the server's default model). */
  model?: string;
  /** Call options the server lets a browser set (by default temperature, topP, maxOutputTokens, thinking). */
  options?: Record<string, unknown>;
  clientRequestId: string;
  resume?: ResumeInput;
}

/**
 * What a model can do, as `GET /models` reports it. Known keys are typed; a server may add more.
 *
 * @example
 * ```ts
 * const canSeeImages = entry.capabilities?.input?.includes('image') ?? false;
 * ```
 */
export interface ModelCapabilities {
  contextWindow?: number;
  maxOutputTokens?: number;
  /** Input kinds the model takes: 'text', 'image', 'pdf', 'audio', ... */
  input?: string[];
  reasoning?: boolean;
  /** False when the model is not in the catalog (capabilities are safe defaults). */
  known?: boolean;
  /** USD per million tokens. */
  pricing?: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number };
  [capability: string]: unknown;
}

/**
 * One model a server offers: an entry of `GET /models`, with its capabilities nested.
 *
 * @example
 * ```ts
 * const models: ModelEntry[] = [{ id: 'anthropic:claude-sonnet-4-5', provider: 'anthropic', capabilities: { reasoning: true } }];
 * ```
 */
export interface ModelEntry {
  /** What clients send as `model`, e.g. 'anthropic:claude-sonnet-4-5'. */
  id: string;
  provider: string;
  name?: string;
  capabilities?: ModelCapabilities;
}

/**
 * The body of `GET /models`.
 *
 * @example
 * ```ts
 * const { models } = (await (await fetch('/api/models')).json()) as ModelsResponseBody;
 * ```
 */
export interface ModelsResponseBody {
  models: ModelEntry[];
}

/**
 * The body of every error response before a stream starts.
 *
 * @example
 * ```ts
 * const { error } = (await response.json()) as ErrorResponseBody;
 * if (error.code === 'overloaded') retryAfter(Number(response.headers.get('retry-after')));
 * ```
 */
export interface ErrorResponseBody {
  error: {
    code: ErrorCode;
    message: string;
    /** For `invalid_request`: where the body is wrong. */
    issues?: unknown[];
  };
}

/**
 * The body of `POST /runs/:id/cancel` (202): the run's status when the cancel was asked for.
 *
 * @example
 * ```ts
 * const { status } = (await response.json()) as CancelResponseBody;
 * ```
 */
export interface CancelResponseBody {
  ok: true;
  status: 'running' | 'finished';
}

/**
 * Where a client is in a run: enough to resume it after a reload (`GET /runs/:runId/events`
 * with `Last-Event-ID: lastEventId`) and refold the rest from the server's events.
 *
 * @example
 * ```ts
 * const cursor: RunCursor = { runId: 'run_1', lastEventId: '41' };
 * ```
 */
export interface RunCursor {
  runId: string;
  /** The id of the last event the client applied (`<runId>:<sequence>`); none yet when absent. */
  lastEventId?: string;
}

/**
 * The response header that names the run a `POST /chat` started or joined.
 *
 * @example
 * const runId = response.headers.get(RUN_ID_HEADER);
 */
export const RUN_ID_HEADER = 'X-Parlance-Run-Id';
