/**
 * AG-UI 1.0 over Parlance runs: an `HttpAgent` (from `@ag-ui/client`, CopilotKit and other AG-UI
 * frontends) posts `RunAgentInput` and reads AG-UI events, encoded by `@ag-ui/encoder` as SSE or
 * protobuf, as its `Accept` header asks.
 *
 *   POST {mount}     RunAgentInput -> AG-UI events (RUN_STARTED ... RUN_FINISHED | RUN_ERROR)
 */
import { EventType } from '@ag-ui/core';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { EventEncoder } from '@ag-ui/encoder';
import { type ChatRequestBody, createThread, type ParlanceError } from '@parlance/protocol';
import { Hono } from 'hono';
import { jsonOf } from '../edge/json-body.ts';
import { errorResponse } from '../error-response.ts';
import { DEFAULT_HEARTBEAT_MS, SSE_HEADERS } from '../sse.ts';
import { createAgUiEventMapper } from './ag-ui-events.ts';
import { agUiInputToThread } from './ag-ui-messages.ts';
import { createFrontendRuns, frontendErrorHandler, type FrontendRouteOptions } from './frontend-runs.ts';
import { frameStream } from './frontend-stream.ts';

/**
 * Options of `createAgUiRoutes`: the Parlance server's options.
 *
 * @example
 * app.route('/agui', createAgUiRoutes({ models: catalogModels(['openai:gpt-5-mini']), run: engineRunner() }));
 */
export type AgUiRoutesOptions = FrontendRouteOptions;

/**
 * A route that speaks AG-UI 1.0 over Parlance runs: the same runner, store and checks as
 * `createParlanceApp` with the same options. `RunAgentInput.tools` become client tools (the run
 * pauses, the frontend answers with a tool message in the next run); approvals and questions
 * become interrupts answered with `RunAgentInput.resume`; the signed thread travels in the
 * agent's state under `parlance`. `forwardedProps.model` picks one of the server's models.
 *
 * @example
 * ```ts
 * import { createAgUiRoutes } from '@parlance/server/ag-ui';
 * app.route('/api/ag-ui', createAgUiRoutes({ models, run: engineRunner({ engine: { tools } }), store }));
 * // client: new HttpAgent({ url: '/api/ag-ui' }).runAgent()
 * ```
 */
export function createAgUiRoutes(options: AgUiRoutesOptions): Hono<any, any, any> {
  const runs = createFrontendRuns(options);
  const app = options.basePath ? new Hono().basePath(options.basePath) : new Hono();
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;

  app.post('/', runs.edge, async (c) => {
    const caller = runs.callerOf(c);
    const json = jsonOf(c);
    const parsed = RunAgentInputSchema.safeParse(json);
    if (!parsed.success) return errorResponse(400, 'invalid_request', 'The body is not a RunAgentInput', parsed.error.issues);
    const input = parsed.data;
    const conversation = agUiInputToThread(input);
    if (conversation.messages.length === 0) return errorResponse(400, 'invalid_request', 'The run has no messages', [{ path: ['messages'], message: 'Send at least one message' }]);
    const request: ChatRequestBody = { thread: createThread(input.threadId, conversation.messages), clientRequestId: crypto.randomUUID() };
    if (conversation.resume) request.resume = conversation.resume;
    const model = (input.forwardedProps as { model?: unknown } | undefined)?.model;
    if (typeof model === 'string') request.model = model;
    const opened = await runs.start(c, caller, request, conversation.clientTools);
    if (opened instanceof Response) return opened;
    const encoder = new EventEncoder(c.req.header('accept') ? { accept: c.req.header('accept')! } : {});
    const sse = encoder.getContentType() === 'text/event-stream';
    const mapper = createAgUiEventMapper({ threadId: input.threadId, runId: input.runId, messages: conversation.messages, state: input.state });
    return frameStream(opened.events, {
      encode: ({ event }) => mapper.push(event).map((e) => encoder.encodeBinary(e)),
      failure: (error: ParlanceError) => [encoder.encodeBinary({ type: EventType.RUN_ERROR, message: error.message, code: error.code })],
      ...(sse ? { heartbeat: new TextEncoder().encode(': ping\n\n') } : {}),
      heartbeatMs,
      headers: { ...SSE_HEADERS, 'Content-Type': encoder.getContentType(), 'X-Parlance-Run-Id': opened.runId },
      // AG-UI has no resume: a client that aborts (`agent.abortRun()`) stops the run.
      onAbandon: () => {
        runs.cancel(c, caller, opened.runId).catch((error: unknown) => options.onError?.(error, { runId: opened.runId }));
      },
      onError: (error) => options.onError?.(error, { runId: opened.runId }),
    });
  });

  app.notFound(() => errorResponse(404, 'not_found', 'No such route'));
  app.onError(frontendErrorHandler(options));
  return app;
}
