/**
 * A run after it started: `GET /runs/:runId/events` resumes from Last-Event-ID and follows it
 * live; `POST /runs/:runId/cancel` aborts it upstream (it ends with chat-finish 'cancelled').
 * A run is only found by the principal that started it; another's run is a 404 too.
 */
import { type CancelResponseBody, parseEventId, wireOf } from '@parlance/protocol';
import { type Context, Hono } from 'hono';
import { principalOf } from '../edge/caller.ts';
import { errorResponse } from '../error-response.ts';
import { ownedBy } from '../run-keys.ts';
import { type RunRecord, runExpiredError, storeUnavailable } from '../run-store.ts';
import type { ServerContext } from '../server-context.ts';
import { followOptions } from '../takeover.ts';
import type { Principal } from '../server-options.ts';
import { sseResponse } from '../sse.ts';

/** The `/runs/:runId/...` routes of one app. */
export function runsRoutes(ctx: ServerContext): Hono<any, any, any> {
  const { store, heartbeatMs, edge } = ctx;
  const app = new Hono();

  /** The run named in the path, if it exists and belongs to the caller (another's run is a 404 too). */
  async function ownRun(c: Context): Promise<{ runId: string; run: RunRecord } | Response> {
    const runId = c.req.param('runId') ?? '';
    const run = await store.get(runId).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    if (!run || !ownedBy(run.requestKey, principalOf<Principal | undefined>(c))) {
      return errorResponse(404, 'not_found', `No run "${runId}"`);
    }
    return { runId, run };
  }

  /** Whether a stored run has an event with this sequence (it has them all from 0 to its last). */
  async function hasEvent(runId: string, seq: number): Promise<boolean> {
    const peek = new AbortController();
    try {
      for await (const stored of store.follow(runId, seq - 1, peek.signal)) return stored.seq === seq;
      return false;
    } finally {
      peek.abort();
    }
  }

  app.get('/runs/:runId/events', edge, async (c) => {
    const found = await ownRun(c);
    if (found instanceof Response) return found;
    const { runId, run } = found;
    // Its events were dropped (the store's byte budget): 410, and the client starts again from its thread.
    if (run.expired) throw runExpiredError(runId);
    const raw = c.req.header('Last-Event-ID') ?? c.req.query('lastEventId');
    const last = raw === undefined || raw === '' ? undefined : parseEventId(raw);
    // A sequence of this run (an id of an older version names its run: it must be this one).
    if (raw !== undefined && raw !== '' && (!last || (last.runId !== undefined && last.runId !== runId))) {
      return errorResponse(400, 'invalid_request', `Last-Event-ID must be the sequence number of an event of run "${runId}"`);
    }
    const after = last ? last.sequence : -1;
    if (after >= 0 && run.status === 'finished' && !(await hasEvent(runId, after))) {
      return errorResponse(400, 'invalid_request', `Run "${runId}" has no event ${after}`);
    }
    return sseResponse((signal) => store.follow(runId, after, signal, followOptions(ctx, c)), { runId, heartbeatMs, wire: wireOf(c.req.header('accept')), onError: (error) => ctx.reportError(error, { runId }) });
  });

  app.post('/runs/:runId/cancel', edge, async (c) => {
    const found = await ownRun(c);
    if (found instanceof Response) return found;
    const { runId, run } = found;
    // A flag in the store: the instance running the upstream call sees it and aborts (see run-execution.ts).
    await store.cancel(runId).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    return c.json({ ok: true, status: run.status } satisfies CancelResponseBody, 202);
  });

  return app;
}
