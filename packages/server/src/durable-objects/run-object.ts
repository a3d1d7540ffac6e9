/**
 * A Durable Object that keeps runs and runs them: the Worker request that receives `POST /chat`
 * verifies it, records what the run started with (`run-start.ts`) and hands the run to this object
 * (`RunStore.launch`), which calls the model and the tools itself; the request only reads. The run
 * thus goes on when the request's isolate goes away, and its events are stored in the object's
 * storage as they happen (`stored-runs.ts`): they are its checkpoints.
 *
 * When the object is evicted or restarted mid-run (a deploy, a crash, a move), its next start reads
 * the runs back and sets its alarm to now; the alarm claims every going run nobody runs and continues
 * it from its last checkpoint with the same code a Redis takeover uses (`takeOverRun`): the cut model
 * step is made again (`step-restarted`), a tool call that was running is run again only when it is
 * idempotent. While runs go on the alarm is kept set `leaseMs` ahead, so a run continues even when
 * nobody reads it and no request wakes the object.
 * https://developers.cloudflare.com/durable-objects/api/alarms/
 */
import type { Context } from 'hono';
import { launchRun } from '../chat-run.ts';
import { type RunStart, startKey } from '../run-start.ts';
import type { RunLimits } from '../run-store.ts';
import { createServerContext, type ServerContext } from '../server-context.ts';
import type { ParlanceServerOptions } from '../server-options.ts';
import { takeOverRun } from '../takeover.ts';
import { answerRunStoreCall, readRunStoreCall } from './run-store-object.ts';
import { openStoredRuns, type RunObjectStorage, type StoredRunStore } from './stored-runs.ts';

/**
 * The parts of a Durable Object's state (`ctx` of its constructor) the run object uses.
 *
 * @example
 * const state: RunObjectState = ctx; // the DurableObjectState workerd passes to the constructor
 */
export interface RunObjectState {
  storage: RunObjectStorage;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

/**
 * The app options the object runs runs with: the same `run`, secret and hooks as the Worker's app
 * (its `store` is the object's own), or a function of the object's bindings.
 *
 * @example
 * const options: RunObjectOptions = (env) => ({ models, run: engineRunner({ engine: { tools } }), secret: String(env.PARLANCE_SECRET) });
 */
export type RunObjectOptions = Omit<ParlanceServerOptions, 'store'> | ((env: Record<string, unknown>) => Omit<ParlanceServerOptions, 'store'>);

/**
 * A Durable Object class as `parlanceRunObject` makes it.
 *
 * @example
 * const object: ParlanceRunObject = new ParlanceRuns(ctx, env);
 */
export interface ParlanceRunObject {
  fetch(request: Request): Promise<Response>;
  alarm(): Promise<void>;
}

/**
 * Makes the Durable Object class that keeps and runs the runs of `createDurableObjectRunStore({ runInObject: true })`.
 * Give it the options of your app (the same runner, secret and hooks); export the class from your Worker and bind it.
 *
 * @example
 * ```ts
 * import { createParlanceApp, engineRunner } from '@parlance/server';
 * import { createDurableObjectRunStore, parlanceRunObject } from '@parlance/server/durable-objects';
 *
 * const options = (env: Env) => ({ models, run: engineRunner({ engine: { tools: [weather] } }), secret: env.PARLANCE_SECRET });
 * export const ParlanceRuns = parlanceRunObject(options);
 * export default {
 *   fetch: (request: Request, env: Env, ctx: ExecutionContext) =>
 *     createParlanceApp({ ...options(env), store: createDurableObjectRunStore({ namespace: env.PARLANCE_RUNS, runInObject: true }) }).fetch(request, env, ctx),
 * };
 * // wrangler.jsonc: "durable_objects": { "bindings": [{ "name": "PARLANCE_RUNS", "class_name": "ParlanceRuns" }] },
 * //                 "migrations": [{ "tag": "v1", "new_sqlite_classes": ["ParlanceRuns"] }]
 * ```
 */
export function parlanceRunObject(options: RunObjectOptions): new (state: RunObjectState, env: Record<string, unknown>) => ParlanceRunObject {
  return class ParlanceRuns implements ParlanceRunObject {
    /** The object's runs, once opened (undefined before any call ever reached this object: nothing stored). */
    private opened: Promise<StoredRunStore | undefined>;
    private server: ServerContext | undefined;

    constructor(
      private readonly state: RunObjectState,
      private readonly env: Record<string, unknown>,
    ) {
      // Before any call is answered: the runs storage holds, and an alarm due now for those nobody runs.
      this.opened = state.blockConcurrencyWhile(async () => {
        const store = await openStoredRuns(state.storage);
        if (store && store.orphans().length > 0) await state.storage.setAlarm(Date.now());
        return store;
      });
    }

    /** The runs; the first call ever opens them with the limits it carries (one opening, whichever call comes first). */
    private async runs(limits?: RunLimits): Promise<StoredRunStore | undefined> {
      const store = await this.opened;
      if (store || !limits) return store;
      this.opened = this.opened.then((opened) => opened ?? openStoredRuns(this.state.storage, limits));
      return this.opened;
    }

    async fetch(request: Request): Promise<Response> {
      const call = await readRunStoreCall(request);
      if (call instanceof Response) return call;
      const store = (await this.runs(call.limits))!;
      if (call.op !== 'launch') {
        const answer = await answerRunStoreCall(store, call, request);
        if (call.op === 'create') await this.keepAlarm(store);
        return answer;
      }
      const [runId, owner] = call.args as [string, string];
      const raw = await store.getValue(startKey(runId));
      // Launched once, by the owner that created it (an alarm may have claimed it meanwhile).
      if (raw === undefined || store.ownerOf(runId) !== owner || !store.orphans().includes(runId)) return Response.json({ ok: false });
      launchRun(this.serverContext(store), this.contextFor(store, runId), runId, JSON.parse(raw) as RunStart, { owner });
      await this.keepAlarm(store);
      return Response.json({ ok: true });
    }

    /** Continues every going run nobody runs here from its checkpoint; clears what retention let go. */
    async alarm(): Promise<void> {
      const store = await this.runs();
      if (!store) return;
      const server = this.serverContext(store);
      for (const runId of store.orphans()) {
        try {
          // The Redis takeover's own step: claim (a new owner fences the last one out), then launch from the stored events.
          // Not to be taken (no recorded start: a Worker request runs it): left to its owner, or ended by `sweep` once silent.
          await takeOverRun(server, this.contextFor(store, runId), runId);
        } catch (error) {
          server.reportError(error, { runId });
        }
      }
      const next = await store.sweep();
      if (next !== undefined) await this.state.storage.setAlarm(next);
    }

    /** While runs go on, an alarm stays set `leaseMs` ahead: a restarted object is woken even when nobody reads. */
    private async keepAlarm(store: StoredRunStore): Promise<void> {
      if ((await this.state.storage.getAlarm()) === null) await this.state.storage.setAlarm(Date.now() + store.limits.leaseMs);
    }

    private serverContext(store: StoredRunStore): ServerContext {
      this.server ??= createServerContext({ ...(typeof options === 'function' ? options(this.env) : options), store });
      return this.server;
    }

    /**
     * What `launchRun` reads of a request's context: the bindings (`c.env`) and `waitUntil`, here the
     * object's own record of the runs it runs (an object lives on while its work goes on; nothing to extend).
     */
    private contextFor(store: StoredRunStore, runId: string): Context {
      return { env: this.env, executionCtx: { waitUntil: (work: Promise<void>) => store.running(runId, work) } } as unknown as Context;
    }
  };
}
