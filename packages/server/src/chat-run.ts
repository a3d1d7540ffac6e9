/**
 * Starting a run for `POST /chat`: the runner's events named, scrubbed and signed on their way
 * into the store, `onFinish` told how the run ended. The run goes on after the response; a run
 * another instance takes over (`takeover.ts`) goes through the same `launchRun`.
 */
import type { EventSigner, ThreadTrust } from '@parlance/engine';
import { createThreadFold, type Event, type Thread, threadAfterRun } from '@parlance/protocol';
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
async function* following(sent: Thread, events: AsyncIterable<Event>, done: (thread: Thread) => void): AsyncGenerator<Event> {
  const fold = createThreadFold(sent);
  for await (const event of events) {
    fold.push(event);
    if (event.type === 'chat-finish') done(fold.thread());
    yield event;
  }
}

/**
 * The runner's events through `map`, then through the run's scrubber: a delta's tail that may begin a
 * secret is held back and comes out before the event that must follow it (the block's next delta or
 * end, a finish); what is still held when the stream ends is taken by `executeRun` (`flush`). Then
 * signed (`signer`), in this same stage: an event that needs no signature is signed synchronously,
 * so a delta crosses one async iterator here, not one per step.
 */
async function* prepared(events: AsyncIterable<Event>, map: (event: Event) => Event, scrub: Scrubber, signer: EventSigner | undefined): AsyncGenerator<Event> {
  const released: Event[] = [];
  const out: Event[] = [];
  for await (const raw of events) {
    const event = scrub.push(map(raw), released);
    if (event !== undefined) released.push(event);
    if (!signer) {
      for (const ready of released) yield ready;
      released.length = 0;
      continue;
    }
    for (const ready of released) {
      const signing = signer.push(ready, out);
      if (signing) await signing;
    }
    released.length = 0;
    for (const signed of out) yield signed;
    out.length = 0;
  }
}
