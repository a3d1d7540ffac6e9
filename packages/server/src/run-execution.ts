/**
 * The life of a run on the instance that calls the upstream model: read the runner's
 * events into the store, keep the run's lease alive, abort the upstream call when any
 * instance cancels (seen through `append`, `renewLease` or the store's `onCancel`), stop it
 * at the store's limits, and always end it with exactly one `chat-finish`.
 *
 * Nothing here lets another request touch this run's I/O: on Workers a request may not
 * abort a fetch another request started ("Cannot perform I/O on behalf of a different
 * request"), so a cancel is a flag in the store that this run's own timer or append sees.
 */
import { type ChatFinishEvent, errorEvent, type Event, ParlanceError } from '@parlance/protocol';
import { type RunStore, runLimitError } from './run-store.ts';

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
}

const CANCELLED = () => new ParlanceError('aborted', 'The run was cancelled');

/** Runs to the end; never throws (failures are reported to `onError` and end the run). */
export async function executeRun(execution: RunExecution): Promise<void> {
  const { store, runId } = execution;
  const controller = new AbortController();
  let stopped: ParlanceError | undefined;
  let release!: () => void;
  const stopping = new Promise<'stop'>((resolve) => (release = () => resolve('stop')));
  let grace: ReturnType<typeof setTimeout> | undefined;

  /** Stops reading the runner now: a limit was hit or the runner ignored a cancel. */
  const stop = (reason: ParlanceError) => {
    stopped ??= reason;
    if (!controller.signal.aborted) controller.abort(reason);
    release();
  };
  const cancel = () => {
    if (controller.signal.aborted) return;
    controller.abort(CANCELLED());
    grace = setTimeout(() => stop(CANCELLED()), execution.cancelGraceMs ?? 5_000);
  };

  const every = store.renewEveryMs ?? store.limits.leaseMs / 4;
  const beat = setInterval(() => {
    store.renewLease(runId).then(
      (signal) => signal.cancelled && cancel(),
      (error) => execution.onError(error),
    );
  }, every);
  const deadline = setTimeout(() => stop(runLimitError(`${store.limits.maxRunMs} ms`)), store.limits.maxRunMs);
  const unsubscribe = store.onCancel?.(runId, cancel);

  let finished = false;
  const append = async (event: Event) => {
    const result = await store.append(runId, event);
    if (result.cancelled) cancel();
  };
  try {
    // Inside the try: a runner that throws before returning its iterable ends the run like one that fails later.
    const iterator = execution.run(controller.signal)[Symbol.asyncIterator]();
    for (;;) {
      const next = await Promise.race([iterator.next(), stopping]);
      if (next === 'stop') {
        void iterator.return?.().catch(() => {});
        break;
      }
      if (next.done) break;
      const event = execution.prepare(next.value);
      await append(event);
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
  } catch (error) {
    // A runner failing right after a cancel was asked for (before a lease renewal saw it) ends cancelled, not failed.
    if (!controller.signal.aborted && (await store.renewLease(runId).catch(() => ({ cancelled: false }))).cancelled) {
      controller.abort(CANCELLED());
    }
    if (ParlanceError.isInstance(error) && error.code === 'run_limit') stop(error);
    else if (!controller.signal.aborted) {
      execution.onError(error);
      // Only our own typed errors reach the client as they are; anything else may carry internals.
      const shown = ParlanceError.isInstance(error) ? error : new ParlanceError('server_error', 'Internal error');
      for (const event of execution.flush?.() ?? []) await store.append(runId, event).catch(execution.onError);
      await store.append(runId, execution.prepare(errorEvent(shown))).catch(execution.onError);
    }
  } finally {
    clearInterval(beat);
    clearTimeout(deadline);
    if (grace !== undefined) clearTimeout(grace);
    unsubscribe?.();
    if (!finished) {
      const ending: Event[] = execution.flush?.() ?? [];
      if (stopped && stopped.code !== 'aborted') {
        ending.push(errorEvent(stopped));
        ending.push({ type: 'chat-finish', haltReason: 'error', usage: {}, error: { code: stopped.code, message: stopped.message } });
      } else {
        ending.push({ type: 'chat-finish', haltReason: controller.signal.aborted ? 'cancelled' : 'error', usage: {} });
      }
      for (const event of ending) await store.append(runId, event).catch(execution.onError);
    }
    await store.finish(runId).catch(execution.onError);
  }
}
