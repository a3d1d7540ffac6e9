/**
 * The HTTP side of the Parlance server protocol. Options are passed on every call,
 * never captured, so a changed `api`, `fetch` or header reaches the next request.
 *
 *   POST {api}/chat                 -> text/event-stream, header X-Parlance-Run-Id
 *   GET  {api}/runs/:id/events      -> the same stream after Last-Event-ID, then live
 *   POST {api}/runs/:id/cancel      -> 202; the run ends with chat-finish 'cancelled'
 *   GET  {api}/models               -> { models: [...] }
 * Errors before the stream: non-2xx with `{ error: { code, message, issues? } }`.
 */
import {
  type ChatRequestBody,
  type ErrorResponseBody,
  errorCodeForStatus,
  isAbortError,
  isErrorCode,
  LEAN_WIRE_ACCEPT,
  type ModelEntry,
  type ModelsResponseBody,
  ParlanceError,
  RUN_ID_HEADER,
} from '@parlance/protocol';

// The contract's types, for modules of this package that import them from here.
export type { ChatRequestBody, ResumeInput } from '@parlance/protocol';

/**
 * Where the Parlance routes are (`api`: the handler's `basePath`), with an optional fetch and headers.
 *
 * @example
 * const transport: TransportOptions = { api: '/api/chat', headers: { authorization: `Bearer ${token}` } };
 */
export interface TransportOptions {
  /** Base URL of the Parlance server routes, e.g. `/api`. */
  api: string;
  fetch?: typeof fetch;
  headers?: Record<string, string> | (() => Record<string, string>);
}

export async function request(o: TransportOptions, path: string, init: RequestInit = {}): Promise<Response> {
  const headers = { ...(typeof o.headers === 'function' ? o.headers() : o.headers), ...(init.headers as Record<string, string>) };
  let response: Response;
  try {
    response = await (o.fetch ?? fetch)(o.api.replace(/\/$/, '') + path, { ...init, headers });
  } catch (cause) {
    if (isAbortError(cause)) throw ParlanceError.from(cause);
    throw new ParlanceError('network', `Could not reach ${o.api}: ${(cause as Error)?.message ?? cause}`, { cause });
  }
  if (response.ok) return response;
  // Untrusted until checked: a proxy or a misconfigured server may send anything.
  let body: Partial<{ error: Partial<Record<keyof ErrorResponseBody['error'], unknown>> }> | undefined;
  try {
    body = await response.json();
  } catch {}
  const code = isErrorCode(body?.error?.code) ? body.error.code : errorCodeForStatus(response.status);
  const message = typeof body?.error?.message === 'string' ? body.error.message : `HTTP ${response.status}`;
  const retryAfter = Number(response.headers.get('retry-after'));
  const error = new ParlanceError(code, message, {
    status: response.status,
    ...(retryAfter > 0 ? { retryAfterMs: retryAfter * 1000 } : {}),
    cause: body?.error?.issues,
  });
  throw error;
}


/**
 * Starts a run (`POST {api}/chat`): the run id from `X-Parlance-Run-Id` and the streaming response.
 *
 * @example
 * const { runId, response } = await postChat({ api: '/api/chat' }, { thread, clientRequestId: crypto.randomUUID() });
 * await readSse(response.body, (event) => console.log(event.type));
 */
export async function postChat(o: TransportOptions, body: ChatRequestBody, signal?: AbortSignal): Promise<{ runId?: string; response: Response }> {
  // The lean wire (the protocol's lean-wire.ts): what the store folds, and nothing it would fold away.
  const response = await request(o, '/chat', { method: 'POST', headers: { 'content-type': 'application/json', accept: LEAN_WIRE_ACCEPT }, body: JSON.stringify(body), signal: signal ?? null });
  return { runId: response.headers.get(RUN_ID_HEADER) ?? undefined, response };
}

/**
 * Reopens a run's stream after the last event seen (`GET {api}/runs/:runId/events`, `Last-Event-ID`).
 *
 * @example
 * const response = await resumeRun({ api: '/api/chat' }, runId, lastEventId);
 */
export function resumeRun(o: TransportOptions, runId: string, lastEventId?: string, signal?: AbortSignal): Promise<Response> {
  const headers: Record<string, string> = { accept: LEAN_WIRE_ACCEPT };
  if (lastEventId) headers['last-event-id'] = lastEventId;
  return request(o, `/runs/${encodeURIComponent(runId)}/events`, { headers, signal: signal ?? null });
}

/**
 * Asks the server to cancel a run (`POST {api}/runs/:runId/cancel`).
 *
 * @example
 * await cancelRun({ api: '/api/chat' }, runId);
 */
export async function cancelRun(o: TransportOptions, runId: string): Promise<void> {
  await request(o, `/runs/${encodeURIComponent(runId)}/cancel`, { method: 'POST' });
}

/**
 * The models the server offers (`GET {api}/models`), capabilities nested as the server sends them.
 *
 * @example
 * ```ts
 * const models = await fetchModels({ api: '/api' });
 * const withImages = models.filter((m) => m.capabilities?.input?.includes('image'));
 * ```
 */
export async function fetchModels(o: TransportOptions): Promise<ModelEntry[]> {
  const body = (await (await request(o, '/models')).json()) as Partial<ModelsResponseBody> | null;
  return Array.isArray(body?.models) ? body.models : [];
}
