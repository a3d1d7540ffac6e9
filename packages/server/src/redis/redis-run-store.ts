/**
 * A `RunStore` on Redis, so every server instance behind a load balancer sees every run:
 * a POST on one instance, the resume on another, the cancel on a third.
 *
 * Layout (prefix `parlance:` by default; one Redis, not Redis Cluster):
 *   run:{id}          hash: status, requestKey, createdAt, count, bytes, cancel, lease, owner (the instance
 *                     running it: a takeover changes it, and the last owner's writes are refused), handover
 *   run:{id}:events   list of event JSON; an event's sequence is its index
 *   req:<requestKey>  the run a principal's clientRequestId started (dedupe)
 *   running           sorted set of going runs by lease expiry (the `maxRunning` count)
 *   finished          sorted set of finished runs by finish time, with finished:bytes (hash: id -> bytes)
 *                     and finished:total: the `maxFinishedBytes` budget (oldest evicted, marked expired)
 *   value:<key>       a value of `setValue` (the AI SDK route's chat -> run map), with its own TTL
 *   channel run:{id}  pub/sub: `<seq> <json>` per event, `c` on cancel, `f` on finish, `h` on a hand-over
 *
 * Every write is one Lua script (one round trip, atomic), and scripts read Redis's own
 * clock (`TIME`) so instances with skewed clocks agree on leases. An append publishes
 * the event itself, so a live reader needs no extra read per event.
 */
import { type Event, ParlanceError } from '@parlance/protocol';
import type { Redis } from 'ioredis';
import { waitForChange } from '../memory-run-store.ts';
import { MAX_VALUE_BYTES } from '../memory-values.ts';
import {
  type ClaimedRun,
  type CreatedRun,
  DEFAULT_RUN_LIMITS,
  type FollowOptions,
  isTerminalEvent,
  lostRunEvents,
  type NewRun,
  noEndingError,
  overloadedError,
  type RunLimits,
  type RunRecord,
  type RunStore,
  runEndedError,
  runExpiredError,
  runLimitError,
  runNotFoundError,
  type StoredEvent,
  storeUnavailable,
} from '../run-store.ts';
import { SCRIPTS } from './scripts.ts';

/**
 * Options of {@link createRedisRunStore}.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 2 });
 * const store = createRedisRunStore({ redis, prefix: 'chat:', limits: { maxRunning: 500 } });
 * ```
 */
export interface RedisRunStoreOptions {
  /**
   * An `ioredis` client the store uses for commands. The store opens one more connection
   * (`redis.duplicate()`) for pub/sub and closes it in `close()`; `redis` stays yours to close.
   * Give it `maxRetriesPerRequest` (and `commandTimeout`) so a Redis that is down turns into a
   * `store_unavailable` error soon instead of requests that wait.
   */
  redis: Redis;
  /** Prefix of every key and channel (default 'parlance:'). */
  prefix?: string;
  /** Per-run and per-store limits (defaults: `DEFAULT_RUN_LIMITS`). `maxRunning` counts runs on every instance. */
  limits?: Partial<RunLimits>;
  /**
   * Bytes of event JSON all finished runs under this prefix keep in Redis together (default 256 MiB).
   * Past it the oldest finished runs are evicted before their `retainMs`: their events are deleted and a
   * resume answers `run_expired` (410); the client starts a fresh run from its thread.
   */
  maxFinishedBytes?: number;
}

/** Bytes of event JSON finished runs keep in Redis unless `maxFinishedBytes` says otherwise (256 MiB). */
const DEFAULT_REDIS_FINISHED_BYTES = 256 * 1024 * 1024;

/**
 * The Redis store: a `RunStore` plus `close()` for its pub/sub connection.
 *
 * @example
 * app.get('/ready', async (c) => (await store.health(), c.text('ok')));
 * process.on('SIGTERM', () => void store.close());
 */
export interface RedisRunStore extends RunStore {
  /** PINGs Redis; throws `store_unavailable` when it does not answer (for a readiness probe). */
  health(): Promise<void>;
  /** Closes the store's pub/sub connection (not the client you passed). */
  close(): Promise<void>;
  /** Takes over a run whose lease lapsed or was released (one Lua script: one instance wins). See `RunStore.claim`. */
  claim(runId: string, owner: string): Promise<ClaimedRun | undefined>;
  /** Hands a run over at once (its lease ends now; readers are woken). See `RunStore.release`. */
  release(runId: string, owner: string): Promise<void>;
}

type Reply = (string | number | null)[];

/**
 * A run store on Redis, shared by every server instance that points at the same Redis.
 *
 * @example
 * ```ts
 * import Redis from 'ioredis';
 * import { createParlanceApp, engineRunner } from '@parlance/server';
 * import { createRedisRunStore } from '@parlance/server/redis';
 *
 * const store = createRedisRunStore({ redis: new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 2 }) });
 * const app = createParlanceApp({ run: engineRunner(), models, store });
 * ```
 */
export function createRedisRunStore(options: RedisRunStoreOptions): RedisRunStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'parlance:';
  const limits: RunLimits = { ...DEFAULT_RUN_LIMITS, ...options.limits };
  // A going run's keys outlive it by a margin, so a run whose owner vanished is still found lost, then forgotten.
  const runningTtl = limits.maxRunMs + limits.leaseMs + limits.retainMs;
  const runKey = (id: string) => `${prefix}run:{${id}}`;
  const eventsKey = (id: string) => `${prefix}run:{${id}}:events`;
  const channel = (id: string) => `${prefix}run:{${id}}`;
  const reqKey = (requestKey: string) => `${prefix}req:${requestKey}`;
  const runningKey = `${prefix}running`;
  const valueKey = (key: string) => `${prefix}value:${key}`;
  const checkMs = Math.max(10, Math.min(1_000, limits.leaseMs / 4));
  const maxFinishedBytes = options.maxFinishedBytes ?? DEFAULT_REDIS_FINISHED_BYTES;

  const shas = new Map<string, string>();
  /** EVALSHA, loading the script on first use and after a Redis restart (NOSCRIPT). */
  async function script(name: keyof typeof SCRIPTS, keys: string[], args: (string | number)[]): Promise<Reply> {
    try {
      let sha = shas.get(name);
      if (!sha) {
        sha = (await redis.script('LOAD', SCRIPTS[name])) as string;
        shas.set(name, sha);
      }
      try {
        return (await redis.evalsha(sha, keys.length, ...keys, ...args)) as Reply;
      } catch (error) {
        if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
        shas.delete(name);
        return (await redis.eval(SCRIPTS[name], keys.length, ...keys, ...args)) as Reply;
      }
    } catch (error) {
      throw storeUnavailable(error);
    }
  }

  async function command<T>(run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw storeUnavailable(error);
    }
  }

  // One pub/sub connection per store, shared by every reader and owner in this process.
  let subscriber: Redis | undefined;
  const listeners = new Map<string, Set<(message: string) => void>>();
  function subscriberConnection(): Redis {
    if (!subscriber) {
      subscriber = redis.duplicate();
      subscriber.on('message', (name: string, message: string) => {
        for (const listener of listeners.get(name) ?? []) listener(message);
      });
      // Errors surface through the commands; an unhandled 'error' event would end the process.
      subscriber.on('error', () => {});
    }
    return subscriber;
  }
  async function listen(name: string, listener: (message: string) => void): Promise<() => void> {
    let set = listeners.get(name);
    if (!set) {
      set = new Set();
      listeners.set(name, set);
    }
    set.add(listener);
    if (set.size === 1) await command(() => subscriberConnection().subscribe(name));
    return () => {
      const current = listeners.get(name);
      if (!current?.delete(listener) || current.size > 0) return;
      listeners.delete(name);
      void subscriber?.unsubscribe(name).catch(() => {});
    };
  }

  function record(fields: (string | null)[]): RunRecord | undefined {
    const [id, requestKey, status, createdAt, cancel, expired] = fields;
    if (!id || !requestKey || !status) return undefined;
    const out: RunRecord = { id, requestKey, status: status === 'finished' ? 'finished' : 'running', createdAt: Number(createdAt) };
    if (cancel === '1') out.cancelRequested = true;
    if (expired === '1') out.expired = true;
    return out;
  }
  const RECORD_FIELDS = ['id', 'requestKey', 'status', 'createdAt', 'cancel', 'expired'];

  async function get(runId: string): Promise<RunRecord | undefined> {
    return record(await command(() => redis.hmget(runKey(runId), ...RECORD_FIELDS)));
  }

  /** Ends a run whose owner's lease lapsed (atomically; a no-op if it finished or renewed meanwhile). */
  async function reap(runId: string): Promise<void> {
    await script('reap', [runKey(runId), eventsKey(runId), runningKey], [runId, limits.retainMs, channel(runId), prefix, maxFinishedBytes, ...lostRunEvents().map((e) => JSON.stringify(e))]);
  }

  return {
    limits,
    async create(run: NewRun): Promise<CreatedRun> {
      const reply = await script('create', [reqKey(run.requestKey), runKey(run.id), runningKey], [
        run.id,
        run.requestKey,
        run.createdAt,
        limits.maxRunning,
        limits.leaseMs,
        runningTtl,
        run.owner ?? '',
      ]);
      if (reply[0] === 2) throw overloadedError(limits);
      const id = String(reply[1]);
      if (reply[0] === 1) return { created: true, run: { id, requestKey: run.requestKey, status: 'running', createdAt: run.createdAt } };
      const existing = await get(id);
      if (existing) return { created: false, run: existing };
      throw new ParlanceError('store_unavailable', 'A run was forgotten while it was being joined; try again', { status: 503, retryAfterMs: 1_000 });
    },
    get,
    async append(runId: string, event: Event, at?: number, owner?: string) {
      const json = JSON.stringify(event);
      const reply = await script('append', [runKey(runId), eventsKey(runId), runningKey], [
        json,
        event.type === 'chat-finish' ? 'f' : isTerminalEvent(event) ? 't' : '0',
        limits.maxEventsPerRun,
        limits.maxBytesPerRun,
        limits.leaseMs,
        channel(runId),
        runId,
        at ?? -1,
        owner ?? '',
      ]);
      const seq = Number(reply[0]);
      if (seq === -3) throw runLimitError(reply[1] === 'events' ? `${limits.maxEventsPerRun} events` : `${limits.maxBytesPerRun} bytes`);
      if (seq === -2) throw runEndedError(runId);
      if (seq < 0) throw runNotFoundError(runId);
      return { seq, cancelled: reply[1] === 1 };
    },
    async finish(runId: string) {
      const reply = await script('finish', [runKey(runId), eventsKey(runId), runningKey], [runId, limits.retainMs, channel(runId), prefix, maxFinishedBytes]);
      if (reply[0] === -1) throw runNotFoundError(runId);
      if (reply[0] === -4) throw noEndingError(runId);
    },
    async cancel(runId: string) {
      return record((await script('cancel', [runKey(runId)], [channel(runId), ...RECORD_FIELDS])) as (string | null)[]);
    },
    async renewLease(runId: string, owner?: string) {
      const reply = await script('renewLease', [runKey(runId), runningKey], [runId, limits.leaseMs, owner ?? '']);
      return { cancelled: reply[0] === 1 };
    },
    async claim(runId: string, owner: string) {
      const reply = await script('claim', [runKey(runId), eventsKey(runId), runningKey], [runId, owner, limits.leaseMs, channel(runId), runningTtl]);
      if (reply[0] !== 1) return undefined;
      return { reason: reply[1] === 'handover' ? 'handover' : 'takeover', events: reply.slice(2).map((json) => JSON.parse(String(json)) as Event) };
    },
    async release(runId: string, owner: string) {
      await script('release', [runKey(runId), runningKey], [runId, owner, channel(runId)]);
    },
    onCancel(runId, listener) {
      let stop: (() => void) | undefined;
      let stopped = false;
      void listen(channel(runId), (message) => message === 'c' && listener()).then(
        (off) => (stopped ? off() : (stop = off)),
        () => {}, // renewLease still carries the cancel
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
    async health() {
      await command(() => redis.ping());
    },
    async setValue(key, value, ttlMs) {
      if (key.length + value.length > MAX_VALUE_BYTES) {
        throw new ParlanceError('invalid_request', `A stored value may hold at most ${MAX_VALUE_BYTES} bytes`, { status: 413 });
      }
      await command(() => redis.set(valueKey(key), value, 'PX', Math.max(1, Math.ceil(ttlMs))));
    },
    async getValue(key) {
      return (await command(() => redis.get(valueKey(key)))) ?? undefined;
    },
    async deleteValue(key, ifValue) {
      if (ifValue === undefined) await command(() => redis.del(valueKey(key)));
      else await script('deleteValue', [valueKey(key)], [ifValue]);
    },
    async *follow(runId: string, afterSeq: number, signal?: AbortSignal, options?: FollowOptions): AsyncGenerator<StoredEvent> {
      const wakers = new Set<() => void>();
      const inbox: string[] = [];
      const off = await listen(channel(runId), (message) => {
        inbox.push(message);
        for (const wake of [...wakers]) wake();
      });
      try {
        let next = afterSeq + 1;
        let sync = true;
        while (!signal?.aborted) {
          if (sync) {
            sync = false;
            const replies = await command(() =>
              redis
                .multi()
                .lrange(eventsKey(runId), next, -1)
                .hmget(runKey(runId), 'status', 'lease', 'expired')
                .time()
                .exec(),
            );
            const [events, fields, time] = (replies ?? []).map(([error, value]) => {
              if (error) throw storeUnavailable(error);
              return value;
            }) as [string[], (string | null)[], [string, string]];
            // Messages already in what was read are skipped below by their sequence.
            for (const json of events) yield { seq: next++, event: JSON.parse(json) as Event };
            const [status, lease, expired] = fields;
            // Gone (expired, evicted, or a Redis that restarted empty): say so, never just stop.
            if (!status) throw runNotFoundError(runId);
            if (expired === '1') throw runExpiredError(runId);
            if (status === 'finished') return;
            const serverNow = Number(time[0]) * 1000 + Math.floor(Number(time[1]) / 1000);
            if (Number(lease) < serverNow) {
              // Offered for takeover first; taken (here or elsewhere), its events come as messages.
              if (options?.onLapsed && (await options.onLapsed(runId))) continue;
              await reap(runId);
              sync = true;
            }
            continue;
          }
          if (inbox.length === 0) await waitForChange(wakers, checkMs, signal);
          if (inbox.length === 0) {
            sync = true; // no news for a while: look at the lease, and at anything a dropped message carried
            continue;
          }
          for (const message of inbox.splice(0)) {
            const space = message.indexOf(' ');
            if (space < 0) {
              if (message === 'f' || message === 'h') sync = true; // finished, or handed over: look now
              continue;
            }
            const seq = Number(message.slice(0, space));
            if (seq < next) continue;
            if (seq > next || sync) {
              sync = true; // a gap: read the list instead
              continue;
            }
            yield { seq: next++, event: JSON.parse(message.slice(space + 1)) as Event };
          }
        }
      } finally {
        off();
      }
    },
    async close() {
      const connection = subscriber;
      subscriber = undefined;
      listeners.clear();
      await connection?.quit().catch(() => connection.disconnect());
    },
  };
}
