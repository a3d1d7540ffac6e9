/**
 * The `RunStore` contract: where a run lives for its whole life, so that any server
 * instance behind a load balancer can resume it, cancel it, or tell that it was lost.
 * Every store (memory, Redis, Durable Objects) passes the same conformance suite
 * (`test/run-store-conformance.ts`).
 */
import { type Event, errorEvent, ParlanceError } from '@parlance/protocol';

/**
 * `running` until the run's last event (`chat-finish`) is stored, then `finished`.
 *
 * @example
 * if (record.status === 'finished') return replay(record);
 */
export type RunStatus = 'running' | 'finished';

/**
 * What a store knows about a run.
 *
 * @example
 * const record = await store.get(runId);
 * if (!record) return new Response('unknown run', { status: 404 });
 */
export interface RunRecord {
  id: string;
  /** `principalKey:clientRequestId`, so a repeated POST finds the run it started. */
  requestKey: string;
  status: RunStatus;
  /** When the run was created (ms since the epoch). */
  createdAt: number;
  /** Someone asked to cancel it; the instance running the upstream call aborts it. */
  cancelRequested?: boolean;
  /**
   * Its events were dropped before its retention ended (the store's byte budget for finished runs
   * was spent): it cannot be resumed, and a resume is answered `run_expired` (410).
   */
  expired?: boolean;
}

/**
 * One stored event and its place in the run (0, 1, 2, ... with no gaps).
 *
 * @example
 * for await (const { seq, event } of store.follow(runId, -1)) console.log(seq, event.type);
 */
export interface StoredEvent {
  seq: number;
  event: Event;
}

/**
 * A run to create: the store keeps `id` unless it names its own runs (the Durable Object store does).
 *
 * @example
 * const { run, created } = await store.create({ id: 'run_1', requestKey: `${user}:${clientRequestId}`, createdAt: Date.now() });
 */
export interface NewRun {
  id: string;
  requestKey: string;
  createdAt: number;
  /**
   * The token of the instance that runs it (stores with `claim`): its appends and lease renewals name it,
   * and once another instance took the run over they are refused (`run_lost`), so a runner that was only
   * slow, not dead, cannot write into the run after it.
   */
  owner?: string;
}

/**
 * A run an instance took over (`claim`): the events its last owner stored, and why it was taken.
 *
 * @example
 * const claimed = await store.claim?.(runId, owner);
 * if (claimed) continueRun(claimed.events, claimed.reason);
 */
export interface ClaimedRun {
  events: Event[];
  /** `takeover`: its owner's lease lapsed (a crash); `handover`: its owner released it (a graceful shutdown). */
  reason: 'takeover' | 'handover';
}

/**
 * What `follow` may do when it finds a run's lease lapsed, before ending it `run_lost`.
 *
 * @example
 * store.follow(runId, -1, signal, { onLapsed: (id) => takeOver(id) });
 */
export interface FollowOptions {
  /**
   * Called when the run's owner stopped renewing its lease: true when this instance took the run over
   * (or leaves it to another instance), so the reader keeps following; false to end it `run_lost`.
   */
  onLapsed?: (runId: string) => Promise<boolean>;
}

/**
 * The run `create` made, or the one a repeated request key already names (`created: false`).
 *
 * @example
 * const { run, created } = await store.create(newRun);
 * if (!created) return resume(run.id);
 */
export interface CreatedRun {
  run: RunRecord;
  created: boolean;
}

/**
 * What `append` and `renewLease` tell the instance running the upstream call.
 *
 * @example
 * const { cancelled } = await store.append(runId, event);
 * if (cancelled) upstream.abort();
 */
export interface RunSignal {
  /** A cancel was requested (on any instance): abort the upstream call. */
  cancelled: boolean;
}

/**
 * The limits a store enforces and states. Defaults in {@link DEFAULT_RUN_LIMITS}.
 *
 * @example
 * ```ts
 * import { createMemoryRunStore } from '@parlance/server';
 * const store = createMemoryRunStore({ limits: { maxRunning: 200, retainMs: 5 * 60_000 } });
 * ```
 */
export interface RunLimits {
  /** Events one run may store; past it the run is stopped with a `run_limit` error. `chat-finish` and `error` always fit. */
  maxEventsPerRun: number;
  /** Bytes of event JSON one run may store (same rule as `maxEventsPerRun`). */
  maxBytesPerRun: number;
  /** How long a run may go on before the server stops it with a `run_limit` error. */
  maxRunMs: number;
  /** Runs going on at once; over it a new run is refused with 503 and `Retry-After`. Nothing is evicted to make room. */
  maxRunning: number;
  /** How long a finished run stays resumable (its events replayable and its request key deduplicated), whatever the load. */
  retainMs: number;
  /**
   * How long the instance running a run may stay silent before other instances call the run lost:
   * it renews the lease every `leaseMs / 4`, and a reader that finds it expired ends the run with `run_lost`.
   */
  leaseMs: number;
  /**
   * How long the instance running a run keeps trying a store that does not answer (the runner's
   * stream paused meanwhile) before it aborts the upstream call; the run's ending then gets as long
   * again to be written. Past both, nothing more is written and a reader ends the run `run_lost`.
   */
  storeGraceMs: number;
}

/**
 * The limits every store uses unless told otherwise.
 *
 * @example
 * createMemoryRunStore({ limits: { ...DEFAULT_RUN_LIMITS, maxRunning: 50 } });
 */
export const DEFAULT_RUN_LIMITS: RunLimits = {
  maxEventsPerRun: 100_000,
  maxBytesPerRun: 16 * 1024 * 1024,
  maxRunMs: 15 * 60_000,
  maxRunning: 1_000,
  retainMs: 10 * 60_000,
  leaseMs: 15_000,
  storeGraceMs: 5_000,
};

/**
 * Where runs live. One instance creates a run, appends its events and finishes it;
 * any instance reads it (`follow`), cancels it, or finds it lost.
 *
 * @example
 * ```ts
 * import { createParlanceApp, createMemoryRunStore, engineRunner } from '@parlance/server';
 * const app = createParlanceApp({ run: engineRunner(), models, store: createMemoryRunStore() });
 * ```
 */
export interface RunStore {
  /** The limits this store enforces. */
  readonly limits: RunLimits;
  /**
   * Creates a run, or returns the one its `requestKey` already names (a retried POST joins its run).
   * Throws `ParlanceError` `overloaded` (status 503, `retryAfterMs`) when `maxRunning` runs are going on,
   * and `store_unavailable` when the store cannot be reached.
   */
  create(run: NewRun): Promise<CreatedRun>;
  get(runId: string): Promise<RunRecord | undefined>;
  /**
   * Appends the next event (sequences start at 0, no gaps) and renews the run's lease. With `at`
   * (the sequence the caller expects it to get), an append tried again after its answer was lost is
   * not written twice: when the run already holds an event at `at`, nothing is written and `at` is
   * returned. Throws `not_found` for an unknown run and `run_lost` for one that already ended.
   * Throws `ParlanceError` `run_limit` when the event does not fit the run's limits
   * (`chat-finish` and `error` always fit, so a stopped run can still end properly).
   */
  append(runId: string, event: Event, at?: number, owner?: string): Promise<RunSignal & { seq: number }>;
  /**
   * Marks the run finished: it stays readable for `retainMs`. Only a run whose last stored event is
   * its `chat-finish` can finish: otherwise this throws and the run stays going (its lease lapses and
   * a reader ends it `run_lost`), so a finished run always has exactly one ending.
   */
  finish(runId: string): Promise<void>;
  /**
   * Every event after `afterSeq` (-1 for all): what is stored, then live ones as they are
   * appended, ending after the run's last event or when `signal` aborts. A run whose lease
   * lapsed is ended here with an `error` `run_lost` and a `chat-finish` `error`. It never just
   * stops: a run that is unknown or vanishes while followed throws `not_found`, one whose events
   * were dropped throws `run_expired`, a store that cannot be reached throws `store_unavailable`.
   * With `onLapsed` (a store with `claim`), a lapsed run is offered for takeover first.
   */
  follow(runId: string, afterSeq: number, signal?: AbortSignal, options?: FollowOptions): AsyncIterable<StoredEvent>;
  /** Asks whichever instance runs it to abort. Returns the run as it was, or undefined when unknown. */
  cancel(runId: string): Promise<RunRecord | undefined>;
  /**
   * How often the instance running a run calls `renewLease` (default `leaseMs / 4`); with no
   * `onCancel`, this bounds how long a cancel takes to reach the upstream call.
   */
  readonly renewEveryMs?: number;
  /**
   * Called by the instance running the run every `renewEveryMs`: renews the lease and says whether to
   * cancel (also when `owner` no longer owns the run: another instance took it over).
   */
  renewLease(runId: string, owner?: string): Promise<RunSignal>;
  /**
   * Takes over a going run whose lease lapsed or that its owner released, in one atomic step, so of
   * every instance that tries exactly one wins: the run's owner becomes `owner` (the last one's writes
   * are refused from now on), its lease starts again, and its stored events are returned. Undefined when
   * it is not to be taken (its owner is alive, it ended or stored its `chat-finish`, another took it).
   * Optional: a store without it ends a lapsed run `run_lost`.
   */
  claim?(runId: string, owner: string): Promise<ClaimedRun | undefined>;
  /**
   * The owner hands the run over at once (a graceful shutdown): its lease ends now and its readers are
   * told, so another instance claims it without waiting for the lease to lapse.
   */
  release?(runId: string, owner: string): Promise<void>;
  /**
   * The store runs the run itself (a Durable Object from `parlanceRunObject`): the run whose start was
   * recorded (`run-start.ts`) is executed by the store, not by the request that created it, and
   * continued by the store when it restarts. Resolves true once it runs there; false when the store
   * did not take it (another owner claimed it, or its start is not found: its alarm deals with it).
   */
  launch?(runId: string, owner: string): Promise<boolean>;
  /**
   * Optional push for cancels (Redis pub/sub): calls `listener` as soon as any instance cancels the run.
   * Without it, a cancel is seen at the next `append` or `renewLease`.
   */
  onCancel?(runId: string, listener: () => void): () => void;
  /** Throws `store_unavailable` when the store cannot be used. */
  health?(): Promise<void>;
  /**
   * Keeps a small value under `key` for `ttlMs`, where every instance on this store reads it: the AI
   * SDK route's chat -> run map lives here, so a resume needs no sticky routing. At most 1 MiB a value.
   */
  setValue(key: string, value: string, ttlMs: number): Promise<void>;
  /** The value under `key`, or undefined when there is none (never set, deleted, expired or evicted). */
  getValue(key: string): Promise<string | undefined>;
  /** Deletes `key`; with `ifValue`, only while it still holds exactly that (another instance may have set it since). */
  deleteValue(key: string, ifValue?: string): Promise<void>;
}

/** The terminal events written for a run whose owner stopped renewing its lease. */
export function lostRunEvents(): Event[] {
  return [
    errorEvent({ code: 'run_lost', message: 'The server running this reply stopped before it finished; what was received is kept.', retryable: true }),
    { type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: 'run_lost', message: 'The server running this reply stopped' } },
  ];
}

/** Events that always fit a run's limits: a stopped run must still end with one `chat-finish`. */
export function isTerminalEvent(event: Event): boolean {
  return event.type === 'chat-finish' || event.type === 'error';
}

/** The error `create` throws at `maxRunning`. */
export function overloadedError(limits: RunLimits): ParlanceError {
  return new ParlanceError('overloaded', `This server is running ${limits.maxRunning} replies; try again shortly`, {
    status: 503,
    retryAfterMs: 1_000,
  });
}

/** The error `append` throws past a per-run limit. */
export function runLimitError(what: string): ParlanceError {
  return new ParlanceError('run_limit', `This reply went over the server's limit of ${what} per run and was stopped`, { status: 413 });
}

/**
 * The error for a run whose events the store dropped (see `RunRecord.expired`): 410, not retryable as
 * it is; the client starts a fresh run from its thread.
 *
 * @example
 * if (record.expired) throw runExpiredError(record.id);
 */
export function runExpiredError(runId: string): ParlanceError {
  return new ParlanceError('run_expired', `Run "${runId}" is no longer kept by this server; start again from the thread`, { status: 410, retryable: false });
}

/**
 * The error `follow` throws for a run the store does not know (never made, forgotten after its
 * retention, or lost with a store that restarted empty): a reader is told, never left with a
 * stream that simply stops.
 *
 * @example
 * if (!run) throw runNotFoundError(runId);
 */
export function runNotFoundError(runId: string): ParlanceError {
  return new ParlanceError('not_found', `No run "${runId}" in the store`, { status: 404, retryable: false });
}

/** Wraps a failure to reach the store. */
export function storeUnavailable(cause: unknown): ParlanceError {
  if (ParlanceError.isInstance(cause)) return cause;
  return new ParlanceError('store_unavailable', 'The run store is not available', { status: 503, retryAfterMs: 1_000, cause });
}

/**
 * The error `append` throws for a run that already ended (a reader found its lease lapsed and ended
 * it `run_lost`): its owner stops, writing nothing more.
 *
 * @example
 * if (record.status === 'finished') throw runEndedError(runId);
 */
export function runEndedError(runId: string): ParlanceError {
  return new ParlanceError('run_lost', `Run "${runId}" already ended: it was called lost while its owner was silent`, { retryable: false });
}

/**
 * The error `finish` throws for a run whose last stored event is not its `chat-finish`.
 *
 * @example
 * if (last?.type !== 'chat-finish') throw noEndingError(runId);
 */
export function noEndingError(runId: string): ParlanceError {
  return new ParlanceError('server_error', `Run "${runId}" cannot finish before its chat-finish is stored`, { retryable: false });
}
