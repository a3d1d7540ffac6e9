/**
 * One Durable Object per chat run. A Worker request may not touch I/O another request
 * started ("Cannot perform I/O on behalf of a different request",
 * https://developers.cloudflare.com/workers/observability/errors/), so with runs held in the
 * front Worker's memory, a resume (GET /runs/:id/events) or a cancel arriving as a new
 * request could not follow or abort the provider stream. Inside a Durable Object every
 * request shares the object's I/O context, and all requests for one run reach the same
 * object, wherever they enter Cloudflare's network.
 *
 * The object is named after the request's `clientRequestId` (a retried POST joins the run
 * it already started), and the run id carries the object's id, so resume and cancel find it.
 */
import { DurableObject } from 'cloudflare:workers';
import type { Hono } from 'hono';
import { createApi } from './api.ts';

export interface WorkerEnv {
  PARLANCE_RUNS: DurableObjectNamespace<ParlanceRun>;
  [name: string]: unknown;
}

export const RUN_ID_PREFIX = 'run_';

/** The run id for the run held by this Durable Object. */
export function runIdFor(objectId: DurableObjectId | string): string {
  return `${RUN_ID_PREFIX}${objectId.toString()}`;
}

export class ParlanceRun extends DurableObject<WorkerEnv> {
  private readonly api: Hono<any>;

  constructor(ctx: DurableObjectState, env: WorkerEnv) {
    super(ctx, env);
    const runId = runIdFor(ctx.id);
    this.api = createApi({ generateId: (prefix) => (prefix === 'run' ? runId : `${prefix}_${crypto.randomUUID().replace(/-/g, '')}`) });
  }

  override fetch(request: Request): Promise<Response> {
    // The object's env holds the same bindings (secrets) as the Worker's: keys are read from it.
    return Promise.resolve(this.api.fetch(request, this.env));
  }
}
