/**
 * Takeover: a run whose instance stopped (a crash, found by its lapsed lease, or a hand-over) is
 * claimed by another instance, in one atomic store step so exactly one wins, and goes on from
 * what was stored: the stored events are the run's checkpoints (a model step is done once its
 * `finish` is stored, a tool call once its `tool-result` is), and the runner continues from them
 * (`ChatRunInput.checkpoint`, the engine's `checkpoint` option). What the other instance needs
 * besides the events, the verified request (thread, model, options, resume, principal), is
 * recorded once when the run starts (`recordStart`): one more store write per run, none per step.
 *
 * Who takes over: the instance of a reader that finds the lease lapsed (`follow`'s `onLapsed`).
 * A run nobody reads is taken over when its client reconnects (the client resumes on its own).
 */
import type { RunCheckpoint } from '@parlance/engine';
import type { ResumeInput, Thread } from '@parlance/protocol';
import type { Context } from 'hono';
import { launchRun } from './chat-run.ts';
import type { Env } from './runtime-env.ts';
import type { ServerContext } from './server-context.ts';
import type { Principal } from './server-options.ts';

/**
 * What a run was started with, after the request was verified: all another instance needs to go on.
 */
export interface RunStart {
  thread: Thread;
  model: string;
  options: Record<string, unknown>;
  resume?: ResumeInput;
  principal: Principal | undefined;
  /** The request sent its thread (it folds the events itself): the runner's thread is not sent back. */
  lean: boolean;
}

/** A run another instance can take over: this instance's owner token, and the checkpoint of a run taken over. */
export interface Durable {
  owner: string;
  checkpoint?: RunCheckpoint;
}

const startKey = (runId: string) => `run-start:${runId}`;

/**
 * Whether runs started here can be taken over: the app allows it (`takeover`, default on), the store
 * can claim runs (Redis), and the runner goes on from checkpoints (`engineRunner`).
 */
export function canTakeOver(ctx: ServerContext, env: Env): boolean {
  return ctx.options.takeover !== false && typeof ctx.store.claim === 'function' && ctx.profile(env)?.checkpoints === true;
}

/** Records what the run started with (false when it could not be: the run then ends `run_lost` if its instance stops). */
export async function recordStart(ctx: ServerContext, runId: string, start: RunStart): Promise<boolean> {
  const { limits } = ctx.store;
  try {
    await ctx.store.setValue(startKey(runId), JSON.stringify(start), limits.maxRunMs + limits.leaseMs + limits.retainMs);
    return true;
  } catch (error) {
    // Too large for a stored value (1 MiB), or the store did not answer: the run goes on, just not durably.
    ctx.reportError(error, { runId });
    return false;
  }
}

/**
 * `follow`'s `onLapsed`: claims the run for this instance and goes on with it. True when this instance
 * took it (or is shutting down and leaves it to others); false when the run is not to be taken here (no
 * recorded start, another instance claimed it first, its ending is stored): the reader's store then
 * ends it `run_lost`, which does nothing to a run whose lease another instance just renewed.
 */
export async function takeOverRun(ctx: ServerContext, c: Context, runId: string): Promise<boolean> {
  if (ctx.handOvers.closing) return true;
  const raw = await ctx.store.getValue(startKey(runId));
  if (raw === undefined || !ctx.store.claim) return false;
  const owner = ctx.generateId('owner');
  const claimed = await ctx.store.claim(runId, owner);
  if (!claimed) return false;
  const start = JSON.parse(raw) as RunStart;
  launchRun(ctx, c, runId, start, { owner, checkpoint: { events: claimed.events, reason: claimed.reason } });
  return true;
}

/** The `follow` options of a reader on this app: offer a lapsed run for takeover when it can be taken. */
export function followOptions(ctx: ServerContext, c: Context): { onLapsed?: (runId: string) => Promise<boolean> } {
  if (ctx.options.takeover === false || !ctx.store.claim) return {};
  return { onLapsed: (runId) => takeOverRun(ctx, c, runId) };
}
