/**
 * `POST /chat`: start or continue a run, answered with the run's events as SSE. Past the edge, the
 * request is checked in order: body, client options, thread, the trust boundary (signatures, no
 * client system messages), the model and its allow-list; then the run starts (`chat-run.ts`).
 */
import { createThread, type Message, ParlanceError, parseThread, type Thread, wireOf } from '@parlance/protocol';
import { Hono } from 'hono';
import { startChatRun } from '../chat-run.ts';
import { errorResponse, refusal } from '../error-response.ts';
import { principalOf } from '../edge/caller.ts';
import { jsonOf } from '../edge/json-body.ts';
import { chatBodySchema, clientOptionsSchema } from '../schema.ts';
import type { ServerContext } from '../server-context.ts';
import { followOptions } from '../takeover.ts';
import type { Principal } from '../server-options.ts';
import { sseResponse } from '../sse.ts';

/** The `POST /chat` route of one app. */
export function chatRoutes(ctx: ServerContext): Hono<any, any, any> {
  const { options, store, heartbeatMs } = ctx;
  const app = new Hono();

  // The edge has checked Origin, authorize, the rate limit, content type, size and depth, and parsed the JSON.
  app.post('/chat', ctx.edge, async (c) => {
    const principal = principalOf<Principal | undefined>(c);
    const parsed = chatBodySchema.safeParse(jsonOf(c));
    if (!parsed.success) {
      return errorResponse(400, 'invalid_request', 'The request body is invalid', parsed.error.issues);
    }
    const body = parsed.data;
    const clientOptions = (options.clientOptions ?? clientOptionsSchema).safeParse(body.options ?? {});
    if (!clientOptions.success) {
      const issues = clientOptions.error.issues.map((issue) => ({ ...issue, path: ['options', ...issue.path] }));
      return errorResponse(400, 'invalid_request', 'These options are not accepted', issues);
    }
    body.options = clientOptions.data;
    let thread: Thread;
    try {
      thread = body.thread ? parseThread(body.thread) : parseThread(createThread(ctx.generateId('thread'), body.messages as Message[]));
    } catch (error) {
      const e = ParlanceError.from(error, 'invalid_request');
      const path = body.thread ? ['thread', ...(e.path ?? [])] : ['messages', ...(e.path ?? []).slice(1)];
      return errorResponse(400, 'invalid_request', e.message, [{ path, message: e.message }]);
    }
    const env = ctx.env(c);
    // The trust boundary: nothing in the thread runs, and nothing answers a pause, unless this server signed it.
    const trust = ctx.trustFor(env);
    try {
      // Verified for this principal: a thread signed for another is refused like an edited one.
      if (trust) await trust.verifyThread(thread, { principal: principal?.id, ...(body.resume ? { resume: body.resume } : {}), allowSystemMessages: options.allowSystemMessages ?? false });
      else if (!options.allowSystemMessages) refuseSystemMessages(thread);
    } catch (error) {
      const e = ParlanceError.from(error);
      const path = e.path?.[0] === 'messages' && body.thread ? ['thread', ...e.path] : e.path;
      return refusal(e, path ? [{ path, message: e.message }] : undefined);
    }
    const models = await ctx.offered(env);
    const model = body.model ?? options.defaultModel ?? models[0]?.id;
    if (!model || !models.some((m) => m.id === model)) {
      return errorResponse(400, 'invalid_request', `Unknown model "${body.model ?? ''}"`);
    }
    if (options.allowModel && !(await options.allowModel(principal, model))) {
      return errorResponse(403, 'permission', `You may not use model "${model}"`);
    }
    const runId = await startChatRun(ctx, c, { body, thread, model, principal, trust });
    return sseResponse((signal) => store.follow(runId, -1, signal, followOptions(ctx, c)), { runId, heartbeatMs, wire: wireOf(c.req.header('accept')), onError: (error) => ctx.reportError(error, { runId }) });
  });

  return app;
}

/** Without a signing secret (development, or no tools), system messages are still refused unless allowed. */
function refuseSystemMessages(thread: Thread): void {
  const at = thread.messages.findIndex((m) => m.role === 'system');
  if (at >= 0) {
    throw new ParlanceError('permission', "System messages are the server's: a client may not send one", { status: 403, path: ['messages', at, 'role'] });
  }
}
