/**
 * What a run that can be taken over records when it starts: the verified request (thread, model,
 * options, resume, principal), once per run, beside its events in the store. The events are its
 * checkpoints; this is the rest another instance needs to go on with it (`takeover.ts`).
 */
import type { RunCheckpoint } from '@parlance/engine';
import type { ResumeInput, Thread } from '@parlance/protocol';
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

/** Where a run's start is kept (a store value, with the run's own retention). */
export const startKey = (runId: string) => `run-start:${runId}`;

/**
 * Whether runs started here can be taken over: the app allows it (`takeover`, default on), the store
 * can claim runs (Redis) or runs them itself (a Durable Object that runs runs), and the runner goes on
 * from checkpoints (`engineRunner`).
 */
export function canTakeOver(ctx: ServerContext, env: Env): boolean {
  const { store } = ctx;
  return ctx.options.takeover !== false && (typeof store.claim === 'function' || typeof store.launch === 'function') && ctx.profile(env)?.checkpoints === true;
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

