/**
 * A `RunStore` on Cloudflare Durable Objects, for a plain Worker (`createParlanceApp` as the
 * Worker's fetch): the Worker request that receives POST /chat calls the model and appends to
 * the object; a resume or a cancel is another request, possibly in another location, that
 * reaches the same object. On a plain Worker with the memory store those requests would hit
 * other isolates (or be refused: "Cannot perform I/O on behalf of a different request").
 *
 * Runs are spread over `shards` objects by request key; each shard enforces
 * `maxRunning / shards`. Runs live in the objects' memory: a finished run stays resumable for
 * `retainMs` unless its object is evicted first (Cloudflare evicts an idle object after some
 * minutes); the thread the browser folds from the events (or `onFinish` stores) is the lasting record.
 */
import { ParlanceError } from '@parlance/protocol';
import type { RunBatch } from '../memory-run-store.ts';
import {
  type CreatedRun,
  DEFAULT_RUN_LIMITS,
  type NewRun,
  type RunLimits,
  type RunRecord,
  type RunSignal,
  type RunStore,
  type StoredEvent,
  storeUnavailable,
} from '../run-store.ts';
import { startKey } from '../run-start.ts';
import type { RunStoreCall } from './run-store-object.ts';

/**
 * The parts of a Durable Object namespace binding the store uses.
 *
 * @example
 * const namespace: RunObjectNamespace = env.RUNS; // the Durable Object binding from wrangler.jsonc
 */
export interface RunObjectNamespace {
  idFromName(name: string): unknown;
  get(id: never): { fetch(input: string, init?: RequestInit): Promise<Response> };
}

/**
 * Options of {@link createDurableObjectRunStore}.
 *
 * @example
 * ```ts
 * createDurableObjectRunStore({ namespace: env.PARLANCE_RUNS, shards: 4, limits: { maxRunning: 400 } });
 * ```
 */
export interface DurableObjectRunStoreOptions {
  /** The binding of `ParlanceRunStoreObject` (e.g. `env.PARLANCE_RUNS`). */
  namespace: RunObjectNamespace;
  /** Objects the runs are spread over (default 1). Each takes `maxRunning / shards` runs. */
  shards?: number;
  /** Object names are `${name}-${shard}` (default 'parlance-runs'). */
  name?: string;
  limits?: Partial<RunLimits>;
  /**
   * The objects run the runs (default false): bind the class `parlanceRunObject(options)` makes, with
   * the app's options. A run then executes in its object, not in the Worker request that started it,
   * its events are stored in the object's storage, and the object's alarm continues it from its last
   * checkpoint after the object was evicted or restarted. False: runs go on in the requests that start
   * them and live in the objects' memory (`ParlanceRunStoreObject`).
   */
  runInObject?: boolean;
}

/** How long one read or cancel watch waits in the object before it answers empty. */
const LONG_POLL_MS = 10_000;

/** Values under this prefix are runs' recorded starts (`run-start.ts`): kept in the run's own object, beside its events. */
const START_PREFIX = startKey('');

function shardOf(key: string, shards: number): number {
  let hash = 0;
  for (let i = 0; i < key.length; i++) hash = (Math.imul(hash, 31) + key.charCodeAt(i)) | 0;
  return Math.abs(hash) % shards;
}

/**
 * A run store on Durable Objects: any Worker request can resume or cancel any run.
 *
 * @example
 * ```ts
 * import { createParlanceApp, engineRunner } from '@parlance/server';
 * import { createDurableObjectRunStore, ParlanceRunStoreObject } from '@parlance/server/durable-objects';
 *
 * export { ParlanceRunStoreObject };
 * export default {
 *   fetch: (request: Request, env: Env, ctx: ExecutionContext) =>
 *     createParlanceApp({ run: engineRunner(), models, store: createDurableObjectRunStore({ namespace: env.PARLANCE_RUNS }) }).fetch(request, env, ctx),
 * };
 * ```
 */
export function createDurableObjectRunStore(options: DurableObjectRunStoreOptions): RunStore {
  const shards = Math.max(1, Math.floor(options.shards ?? 1));
  const name = options.name ?? 'parlance-runs';
  const limits: RunLimits = { ...DEFAULT_RUN_LIMITS, ...options.limits };
  const shardLimits: RunLimits = { ...limits, maxRunning: Math.ceil(limits.maxRunning / shards) };
  // The shard is part of the run id, so a resume or cancel finds the object without a lookup.
  const shardOfRun = (runId: string) => {
    const at = runId.lastIndexOf('.s');
    const shard = at < 0 ? 0 : Number(runId.slice(at + 2));
    return Number.isInteger(shard) && shard >= 0 && shard < shards ? shard : 0;
  };
  const shardOfKey = (key: string) => (key.startsWith(START_PREFIX) ? shardOfRun(key.slice(START_PREFIX.length)) : shardOf(key, shards));

  async function call<T>(shard: number, op: RunStoreCall['op'], args: unknown[], signal?: AbortSignal): Promise<T> {
    let body: { ok?: T; error?: { code: ParlanceError['code']; message: string; status?: number; retryAfterMs?: number } };
    try {
      const stub = options.namespace.get(options.namespace.idFromName(`${name}-${shard}`) as never);
      const init: RequestInit = { method: 'POST', body: JSON.stringify({ op, args, limits: shardLimits } satisfies RunStoreCall) };
      if (signal) init.signal = signal;
      const response = await stub.fetch(`https://parlance-runs/${op}`, init);
      body = (await response.json()) as typeof body;
    } catch (error) {
      throw storeUnavailable(error);
    }
    if (body.error) {
      const { code, message, status, retryAfterMs } = body.error;
      const errorOptions: ConstructorParameters<typeof ParlanceError>[2] = {};
      if (status !== undefined) errorOptions.status = status;
      if (retryAfterMs !== undefined) errorOptions.retryAfterMs = retryAfterMs;
      throw new ParlanceError(code, message, errorOptions);
    }
    return body.ok as T;
  }

  return {
    limits,
    async create(run: NewRun): Promise<CreatedRun> {
      const shard = shardOf(run.requestKey, shards);
      return call<CreatedRun>(shard, 'create', [{ ...run, id: shards > 1 ? `${run.id}.s${shard}` : run.id }]);
    },
    async get(runId) {
      return (await call<RunRecord | null>(shardOfRun(runId), 'get', [runId])) ?? undefined;
    },
    append: (runId, event, at) => call(shardOfRun(runId), 'append', at === undefined ? [runId, event] : [runId, event, at]),
    finish: (runId) => call(shardOfRun(runId), 'finish', [runId]),
    async cancel(runId) {
      return (await call<RunRecord | null>(shardOfRun(runId), 'cancel', [runId])) ?? undefined;
    },
    renewLease: (runId) => call<RunSignal>(shardOfRun(runId), 'renewLease', [runId]),
    onCancel(runId, listener) {
      // A long poll held in the object: the owner hears of a cancel the moment it is asked for.
      const stop = new AbortController();
      void (async () => {
        while (!stop.signal.aborted) {
          try {
            const signal = await call<RunSignal>(shardOfRun(runId), 'waitCancel', [runId, LONG_POLL_MS], stop.signal);
            if (signal.cancelled) return listener();
          } catch {
            return; // renewLease still carries the cancel
          }
        }
      })();
      return () => stop.abort();
    },
    ...(options.runInObject ? { launch: (runId: string, owner: string) => call<boolean>(shardOfRun(runId), 'launch', [runId, owner]) } : {}),
    // A value lives in the shard its key hashes to, so every Worker request finds it without a lookup.
    setValue: (key, value, ttlMs) => call(shardOfKey(key), 'setValue', [key, value, ttlMs]),
    async getValue(key) {
      return (await call<string | null>(shardOfKey(key), 'getValue', [key])) ?? undefined;
    },
    deleteValue: (key, ifValue) => call(shardOfKey(key), 'deleteValue', ifValue === undefined ? [key] : [key, ifValue]),
    async *follow(runId, afterSeq, signal): AsyncGenerator<StoredEvent> {
      let next = afterSeq + 1;
      /** When the object last answered: an object that restarts (evicted, deployed) is asked again for a while. */
      let answered = Date.now();
      for (let attempt = 0; !signal?.aborted; ) {
        let batch: RunBatch | null;
        try {
          batch = await call<RunBatch | null>(shardOfRun(runId), 'read', [runId, next - 1, LONG_POLL_MS], signal);
          answered = Date.now();
          attempt = 0;
        } catch (error) {
          if (signal?.aborted) return;
          // Not reached (the object reset under the call): its runs are read back from storage when it starts again.
          const unreachable = ParlanceError.isInstance(error) && error.code === 'store_unavailable';
          if (!options.runInObject || !unreachable || Date.now() - answered > limits.leaseMs + limits.storeGraceMs) throw error;
          await new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 50 * 2 ** attempt++)));
          continue;
        }
        if (!batch) return;
        for (const stored of batch.events) {
          yield stored;
          next = stored.seq + 1;
        }
        if (batch.finished) return;
      }
    },
  };
}
