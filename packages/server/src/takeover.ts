/**
 * Takeover: a run whose instance stopped (a crash, found by its lapsed lease, or a hand-over) is
 * claimed by another instance, in one atomic store step so exactly one wins, and goes on from
 * what was stored: the stored events are the run's checkpoints (a model step is done once its
 * `finish` is stored, a tool call once its `tool-result` is), and the runner continues from them
 * (`ChatRunInput.checkpoint`, the engine's `checkpoint` option). What the other instance needs
 * besides the events, the verified request (thread, model, options, resume, principal), is
 * recorded once when the run starts (`run-start.ts`): one more store write per run, none per step.
 *
 * Who takes over: the instance of a reader that finds the lease lapsed (`follow`'s `onLapsed`).
 * A run nobody reads is taken over when its client reconnects (the client resumes on its own).
 */
import type { Context } from 'hono';
import { launchRun } from './chat-run.ts';
import { type RunStart, startKey } from './run-start.ts';
import type { ServerContext } from './server-context.ts';

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
