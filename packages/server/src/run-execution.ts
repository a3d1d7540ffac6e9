/**
 * The life of a run on the instance that calls the upstream model: read the runner's
 * events into the store, keep the run's lease alive, abort the upstream call when any
 * instance cancels (seen through `append`, `renewLease` or the store's `onCancel`), stop it
 * at the store's limits, and end it with exactly one `chat-finish`, or not at all.
 *
 * Exactly one ending: the run is marked finished only after its `chat-finish` is stored (the
 * store refuses otherwise). A store that does not answer is tried again, the runner's stream
 * paused meanwhile (nothing is read that could not be stored), for `storeGraceMs`; past it the
 * upstream call is aborted and the ending is written once the store answers again within another
 * `storeGraceMs`. If it never does, nothing more is written: the run's lease lapses and the first
 * reader ends it `run_lost`. Each retried append names the sequence it expects, so an append whose
 * answer was lost is not written twice.
 *
 * Nothing here lets another request touch this run's I/O: on Workers a request may not
 * abort a fetch another request started ("Cannot perform I/O on behalf of a different
 * request"), so a cancel is a flag in the store that this run's own timer or append sees.
 */
import { type ChatFinishEvent, errorEvent, type Event, ParlanceError, takeReady } from '@parlance/protocol';
import { type RunStore, runLimitError, storeUnavailable } from './run-store.ts';

export interface RunExecution {
  store: RunStore;
  runId: string;
  /** Starts the runner with the signal that aborts its upstream call. */
  run: (signal: AbortSignal) => AsyncIterable<Event>;
  /** Applied to each event before it is stored (message ids, secret scrubbing). */
  prepare: (event: Event) => Event;
  /**
   * Events `run`'s stream still holds back (text the secret scrubber held at the tail of a block), taken
   * when the run ends without its `chat-finish` (the runner threw, stopped early or was stopped) and
   * written before the run's own ending, so no text that was received is lost.
   */
  flush?: () => Event[];
  onFinish: (event: ChatFinishEvent) => Promise<void>;
  /** Gets what is hidden from the client (a runner's exception, a store failure). */
  onError: (error: unknown) => void;
  /** How long a runner that ignores its abort signal gets to end after a cancel (default 5 s). */
  cancelGraceMs?: number;
  /** This instance's owner token of the run (a store with `claim`): every append and renewal names it. */
  owner?: string;
  /** The sequence of the first event written (a run taken over goes on after what was stored). */
  firstSeq?: number;
  /**
   * Registers how to hand the run over (a graceful shutdown): the runner is stopped, nothing more is
   * written (no ending), and the lease is released for another instance to take the run at once.
   * Returns the unregistering function.
   */
  onHandOver?: (handOver: () => void) => () => void;
}

const CANCELLED = () => new ParlanceError('aborted', 'The run was cancelled');

/** The store answered that this run is gone (`not_found`, `run_expired`) or already ended by another (`run_lost`): write nothing more. */
const isGone = (error: unknown) => ParlanceError.isInstance(error) && (error.code === 'not_found' || error.code === 'run_expired' || error.code === 'run_lost');
/** The store did not answer: worth trying again. Any failure that is not a typed answer counts. */
const isUnreachable = (error: unknown) => !ParlanceError.isInstance(error) || error.code === 'store_unavailable';

/** Runs to the end; never throws (failures are reported to `onError` and end the run). */
export async function executeRun(execution: RunExecution): Promise<void> {
  const { store, runId } = execution;
  const graceMs = store.limits.storeGraceMs;
  const controller = new AbortController();
  let stopped: ParlanceError | undefined;
  /** Settles the runner's step being awaited with 'stop' (see `nextOrStop`). */
  let interrupt: ((value: 'stop') => void) | undefined;
  let cancelTimer: ReturnType<typeof setTimeout> | undefined;
  /** When the store last answered. */
  let storeOk = Date.now();
  /**
   * The sequence the next event gets (retries name it, so a lost answer is not a second copy);
   * undefined after a write was given up (it may or may not have been stored) until an append answers.
   */
  let next: number | undefined = execution.firstSeq ?? 0;
  /** The run is being handed over: stop, write no ending, release the lease. */
  let handingOver = false;
  /** A write failed for good (the store is gone or did not answer within the grace): nothing more is written until the ending. */
  let broken = false;
  /** The store said the run is gone or was ended by another instance: nothing more is written, not even an ending. */
  let gone = false;

  /** Stops reading the runner now: a limit was hit, the store is gone, or the runner ignored a cancel. */
  const stop = (reason: ParlanceError) => {
    stopped ??= reason;
    if (!controller.signal.aborted) controller.abort(reason);
    interrupt?.('stop');
  };
  const cancel = () => {
    if (controller.signal.aborted) return;
    controller.abort(CANCELLED());
    cancelTimer = setTimeout(() => stop(CANCELLED()), execution.cancelGraceMs ?? 5_000);
  };

  /**
   * Appends one event, trying again while the store does not answer, up to `graceMs` since it last
   * did. Throws the store's typed answer (`run_limit`, gone) at once, `store_unavailable` past the grace.
   */
  const write = async (event: Event): Promise<void> => {
    if (broken) throw storeUnavailable(new Error('An earlier write failed'));
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await store.append(runId, event, next, execution.owner);
        storeOk = Date.now();
        next = result.seq + 1;
        if (result.cancelled) cancel();
        return;
      } catch (error) {
        if (isGone(error)) gone = broken = true;
        if (!isUnreachable(error)) throw error;
        const left = storeOk + graceMs - Date.now();
        if (left <= 0) {
          broken = true;
          next = undefined;
          throw storeUnavailable(error);
        }
        if (attempt === 0) execution.onError(error);
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, 50 * 2 ** Math.min(attempt, 5))));
      }
    }
  };

  const every = store.renewEveryMs ?? store.limits.leaseMs / 4;
  let reported = false;
  // Often enough to notice an unreachable store within the grace.
  const beat = setInterval(() => {
    store.renewLease(runId, execution.owner).then(
      (signal) => {
        storeOk = Date.now();
        reported = false;
        if (signal.cancelled) cancel();
      },
      (error) => {
        if (!reported) execution.onError(error);
        reported = true;
        // The store has not answered for the whole grace: stop calling the model for a reply nobody can get.
        if (Date.now() - storeOk > graceMs) stop(storeUnavailable(error));
      },
    );
  }, Math.min(every, Math.max(10, graceMs / 2)));
  const deadline = setTimeout(() => stop(runLimitError(`${store.limits.maxRunMs} ms`)), store.limits.maxRunMs);
  const unsubscribe = store.onCancel?.(runId, cancel);
  const unregister = execution.onHandOver?.(() => {
    if (handingOver) return;
    handingOver = true;
    stop(new ParlanceError('aborted', 'The run is handed over to another instance'));
  });

  let finished = false;
  try {
    // Inside the try: a runner that throws before returning its iterable ends the run like one that fails later.
    const iterator = execution.run(controller.signal)[Symbol.asyncIterator]();
    /**
     * The runner's next event, or 'stop' as soon as `stop` is called (a runner may ignore its abort
     * signal). One promise per event that `stop` can settle, rather than a `Promise.race` with one
     * long-lived stop promise, which would keep a reaction per event until the run ends.
     */
    const nextOrStop = (): Promise<IteratorResult<Event> | 'stop'> =>
      stopped
        ? Promise.resolve('stop')
        : new Promise((resolve, reject) => {
            interrupt = resolve;
            iterator.next().then(resolve, reject);
          });
    for (;;) {
      const step = await nextOrStop();
      if (step === 'stop') {
        void iterator.return?.().catch(() => {});
        break;
      }
      if (step.done) break;
      // The event, then what the runner holds already (the rest of a decoded batch) without a wait per event.
      for (let raw: Event | undefined = step.value; raw !== undefined; raw = stopped ? undefined : takeReady(iterator)) {
        const event = execution.prepare(raw);
        await write(event);
        if (event.type === 'chat-finish') {
          finished = true;
          try {
            await execution.onFinish(event);
          } catch (error) {
            // A failing persistence hook must not break the stream the user is reading.
            execution.onError(error);
          }
          break;
        }
      }
      if (finished) break;
    }
  } catch (error) {
    if (broken) {
      // The store said the run is gone, or did not answer within the grace: abort the upstream call.
      stop(ParlanceError.isInstance(error) ? error : storeUnavailable(error));
    } else {
      // A runner failing right after a cancel was asked for (before a lease renewal saw it) ends cancelled, not failed.
      if (!controller.signal.aborted && (await store.renewLease(runId, execution.owner).catch(() => ({ cancelled: false }))).cancelled) {
        controller.abort(CANCELLED());
      }
      if (ParlanceError.isInstance(error) && error.code === 'run_limit') stop(error);
      else if (!controller.signal.aborted) {
        execution.onError(error);
        // Only our own typed errors reach the client as they are; anything else may carry internals.
        const shown = ParlanceError.isInstance(error) ? error : new ParlanceError('server_error', 'Internal error');
        await writeAll([...(execution.flush?.() ?? []), execution.prepare(errorEvent(shown))]);
      }
    }
  } finally {
    clearInterval(beat);
    clearTimeout(deadline);
    if (cancelTimer !== undefined) clearTimeout(cancelTimer);
    unsubscribe?.();
    unregister?.();
    if (handingOver && !finished && !gone) {
      // Handed over: what is stored is the checkpoint; the instance that claims it writes the rest.
      gone = true;
      await store.release?.(runId, execution.owner ?? '').catch((error: unknown) => execution.onError(error));
    }
    if (!finished && !gone) {
      // The upstream call is over: the ending gets a grace of its own to reach a store that did not answer.
      broken = false;
      storeOk = Date.now();
      const ending: Event[] = execution.flush?.() ?? [];
      if (stopped && stopped.code !== 'aborted') {
        ending.push(errorEvent(stopped));
        ending.push({ type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: stopped.code, message: stopped.message } });
      } else {
        ending.push({ type: 'chat-finish', haltReason: controller.signal.aborted ? 'cancelled' : 'error', usage: {} });
      }
      finished = await writeAll(ending);
    }
    // Finished only once the chat-finish is stored; else the lease lapses and a reader ends it run_lost.
    if (finished && !gone) await finish();
  }

  /** Writes events in order; stops at the first that cannot be written (nothing after it, so never a second ending). */
  async function writeAll(events: Event[]): Promise<boolean> {
    for (const event of events) {
      try {
        await write(event);
      } catch (error) {
        execution.onError(error);
        return false;
      }
    }
    return true;
  }

  /** Marks the run finished, trying again while the store does not answer (within the grace). */
  async function finish(): Promise<void> {
    storeOk = Date.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await store.finish(runId);
      } catch (error) {
        const left = storeOk + graceMs - Date.now();
        if (!isUnreachable(error) || left <= 0) return execution.onError(error);
        await new Promise((resolve) => setTimeout(resolve, Math.min(left, 50 * 2 ** Math.min(attempt, 5))));
      }
    }
  }
}
