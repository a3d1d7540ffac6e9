/**
 * Starting a run for `POST /chat`: the runner's events named, scrubbed and signed on their way
 * into the store, `onFinish` told how the run ended. The run goes on after the response; a run
 * another instance takes over (`takeover.ts`) goes through the same `launchRun`.
 */
import type { EventSigner, ThreadTrust } from '@parlance/engine';
import { createThreadFold, type Event, heldQueue, type ReadyIterator, takeReady, type Thread, threadAfterRun } from '@parlance/protocol';
import { fileSourceFor } from './files/blob-source.ts';
import type { Context } from 'hono';
import { executeRun } from './run-execution.ts';
import { requestKey } from './run-keys.ts';
import { storeUnavailable } from './run-store.ts';
import { runtimeBindings, waitUntil } from './runtime-env.ts';
import type { ParsedChatBody } from './schema.ts';
import { createScrubber, envSecrets, type Scrubber } from './scrub.ts';
import type { ServerContext } from './server-context.ts';
import type { ChatRunInput, FinishedRun, Principal } from './server-options.ts';
import { signingSecrets } from './server-trust.ts';
import { canTakeOver, type Durable, recordStart, type RunStart } from './run-start.ts';

/** What a verified chat request starts: its body, thread, model, caller and the thread trust. */
export interface ChatStart {
  body: ParsedChatBody;
  thread: Thread;
  model: string;
  principal: Principal | undefined;
  trust: ThreadTrust | undefined;
}

/** Starts the run, or joins the one this request key already started; the run goes on after the response. */
export async function startChatRun(ctx: ServerContext, c: Context, start: ChatStart): Promise<string> {
  const { store, generateId } = ctx;
  const { body, thread, model, principal } = start;
  const env = ctx.env(c);
  // A run another instance can take over names its owner, so a takeover fences this one out.
  const owner = canTakeOver(ctx, env) ? generateId('owner') : undefined;
  const { run, created } = await store
    .create({ id: generateId('run'), requestKey: requestKey(principal, body.clientRequestId), createdAt: Date.now(), ...(owner ? { owner } : {}) })
    .catch((error: unknown) => {
      throw storeUnavailable(error);
    });
  if (!created) return run.id;
  const runStart: RunStart = { thread, model, options: body.options ?? {}, principal, lean: body.thread !== undefined };
  if (body.resume) runStart.resume = body.resume;
  // What another instance needs to go on with the run (a run whose start does not fit is not taken over).
  const durable = owner !== undefined && (await recordStart(ctx, run.id, runStart)) ? { owner } : undefined;
  // A store that runs runs itself (a Durable Object) takes it from here; this request only reads.
  if (durable && store.launch) {
    await store.launch(run.id, durable.owner).catch((error: unknown) => {
      throw storeUnavailable(error);
    });
    return run.id;
  }
  launchRun(ctx, c, run.id, runStart, durable);
  return run.id;
}

/**
 * Runs `start` into the store: the runner's events named, scrubbed and signed on their way in, `onFinish`
 * told how the run ended. `durable` (a run another instance can take over) names this instance's owner
 * token and, for a run taken over, the checkpoint it goes on from. The run goes on after the response.
 */
export function launchRun(ctx: ServerContext, c: Context, runId: string, start: RunStart, durable?: Durable): void {
  const { options, store, generateId } = ctx;
  const { model, principal } = start;
  const env = ctx.env(c);
  const trust = ctx.trustFor(env);
  let finalThread: Thread | undefined;
  const checkpoint = durable?.checkpoint;
  // The thread as the stored events left it: what the signer and `onFinish` fold the rest onto.
  const thread = checkpoint ? threadAfterRun(start.thread, checkpoint.events) : start.thread;
  const scrub = createScrubber([...envSecrets(env), ...(options.secrets ?? []), ...(ctx.profile(env)?.secrets ?? []), ...(signingSecrets(options, env) ?? [])]);
  const work = executeRun({
    store,
    runId,
    run: (signal) => {
      const input: ChatRunInput = { runId, thread: start.thread, model, options: start.options, signal, env, principal, generateId };
      if (start.resume) input.resume = start.resume;
      if (checkpoint) input.checkpoint = checkpoint;
      if (options.files) input.files = fileSourceFor(options.files, env, runtimeBindings(c, env));
      // Every event is scrubbed, then signed: what is signed is exactly what the browser gets.
      // A caller that sent its thread folds the events onto it (`threadAfterRun`): the runner's
      // thread is not sent back. A caller that sent bare messages holds no thread, so it gets it.
      const { lean } = start;
      const name = (raw: Event): Event => {
        if (raw.type === 'message-start' && !raw.messageId) return { ...raw, messageId: generateId('msg') };
        if (lean && raw.type === 'chat-finish' && raw.thread) {
          const { thread: _foldedByTheBrowser, ...event } = raw;
          return event;
        }
        return raw;
      };
      // Signed for this principal: another principal's thread is refused like an edited one.
      const signer = trust?.eventSigner(thread, { principal: principal?.id });
      const signed = prepared(options.run(input), name, scrub, signer);
      // `onFinish` gets the thread the browser ends with: what is sent, folded as the browser folds it.
      return lean && options.onFinish ? following(thread, signed, (t) => (finalThread = t)) : signed;
    },
    // The error executeRun writes itself (a runner's exception) is scrubbed too; the runner's events already were.
    prepare: (event) => (event.type === 'error' ? scrub.event(event) : event),
    // Text the scrubber still holds when a run ends mid-block (see `prepared`).
    flush: () => scrub.flush(),
    onFinish: async (event) => {
      const finish: FinishedRun = { runId, principal, model, haltReason: event.haltReason, usage: event.usage };
      const kept = event.thread ?? finalThread;
      if (kept) finish.thread = kept;
      await options.onFinish?.(finish);
    },
    onError: (error) => ctx.reportError(error, { runId }),
    ...(durable ? { owner: durable.owner, firstSeq: checkpoint?.events.length ?? 0, onHandOver: (handOver: () => void) => ctx.handOvers.add(handOver) } : {}),
  });
  if (durable) ctx.handOvers.track(work);
  waitUntil(c, work);
}

/** The events as they pass, with the thread they fold to from `sent` (as the browser folds them) given to `done` at `chat-finish`. */
function following(sent: Thread, events: AsyncIterable<Event>, done: (thread: Thread) => void): ReadyIterator<Event> {
  const fold = createThreadFold(sent);
  const source = events[Symbol.asyncIterator]();
  const see = (event: Event) => {
    fold.push(event);
    if (event.type === 'chat-finish') done(fold.thread());
  };
  const iterator: ReadyIterator<Event> = {
    next: () =>
      source.next().then((result) => {
        if (!result.done) see(result.value);
        return result;
      }),
    takeReady: () => {
      const event = takeReady(source);
      if (event !== undefined) see(event);
      return event;
    },
    return: async () => (await source.return?.()) ?? { done: true, value: undefined },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

/**
 * The runner's events through `map`, then through the run's scrubber: a delta's tail that may begin a
 * secret is held back and comes out before the event that must follow it (the block's next delta or
 * end, a finish); what is still held when the stream ends is taken by `executeRun` (`flush`). Then
 * signed (`signer`), in this same stage: an event that needs no signature is signed synchronously.
 * A hand-written iterator, not an async generator: what the runner holds already passes through
 * `takeReady()` (the protocol's ready-iterator.ts) without a promise per event.
 */
function prepared(events: AsyncIterable<Event>, map: (event: Event) => Event, scrub: Scrubber, signer: EventSigner | undefined): ReadyIterator<Event> {
  const source = events[Symbol.asyncIterator]();
  /** Events ready for the reader, in order. */
  const held = heldQueue<Event>();
  const out = held.items;
  /** Events the scrubber released and the signer has not taken yet (they wait behind a signature). */
  const released: Event[] = [];
  /** A signature being made: the events after it wait until it is in `out`. */
  let signing: Promise<void> | undefined;
  let sourceDone = false;
  const shift = held.take;
  /** Hands what was released to the signer in order, up to the first signature that must be awaited. */
  const sign = () => {
    let at = 0;
    while (at < released.length && !signing) {
      const pending = signer ? signer.push(released[at++]!, out) : void out.push(released[at++]!);
      if (pending) {
        signing = pending.then(() => {
          signing = undefined;
        });
        // Awaited by the next pull; never an unhandled rejection if the reader left first.
        signing.catch(() => {});
      }
    }
    released.splice(0, at);
  };
  const take = (raw: Event) => {
    const event = scrub.push(map(raw), released);
    if (event !== undefined) released.push(event);
    sign();
  };
  const pull = async (): Promise<IteratorResult<Event>> => {
    for (;;) {
      const held = shift();
      if (held !== undefined) return { done: false, value: held };
      if (signing) {
        await signing;
        sign();
        continue;
      }
      if (sourceDone) return { done: true, value: undefined };
      const next = await source.next();
      if (next.done) sourceDone = true;
      else take(next.value);
    }
  };
  const iterator: ReadyIterator<Event> = {
    next: () => {
      const held = shift();
      return held !== undefined ? Promise.resolve({ done: false, value: held }) : pull();
    },
    takeReady: () => {
      for (;;) {
        const held = shift();
        if (held !== undefined || signing || sourceDone) return held;
        const raw = takeReady(source);
        if (raw === undefined) return undefined;
        take(raw);
      }
    },
    return: async () => {
      sourceDone = true;
      held.clear();
      return (await source.return?.()) ?? { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}
