/**
 * Going on from a checkpoint: a run whose process stopped (a crash, a deploy) is continued by
 * another from what it durably recorded, its events so far. Those events are the checkpoints:
 * a model step is done once its `finish` is recorded, a tool call once its `tool-result` is (the
 * loop emits each result as soon as it and the calls before it are settled). This file reads
 * where the events stop; `ChatRun` goes on from there.
 */
import { addUsage, type Event, type FoldState, type Usage } from '@parlance/protocol';
import { owedCalls, unresolvedCalls } from './pending.ts';

/**
 * What a run continued elsewhere starts from: the events the stopped run recorded after the thread
 * it was given (signed and scrubbed as they were sent), and why it stopped.
 *
 * @example
 * // On the instance taking the run over: the same thread and resume, plus what was stored.
 * const events = engine.streamChat({ thread, resume, checkpoint: { events: stored, reason: 'takeover' } });
 */
export interface RunCheckpoint {
  /** Every event the stopped run recorded, in order (without a `chat-finish`: a run that ended is not continued). */
  events: readonly Event[];
  /** `takeover`: its lease lapsed (a crash); `handover`: it stopped on purpose (a graceful shutdown). */
  reason: 'takeover' | 'handover';
}

/**
 * The result a tool call gets when it was running in a process that stopped and the tool is not
 * `idempotent`: whether it took effect is unknown, so it is not run again, and the model is told.
 *
 * @example
 * if (part.output === INTERRUPTED_RESULT) showWarning('A tool was interrupted');
 */
export const INTERRUPTED_RESULT = 'interrupted: not run again (the server running this tool call stopped; whether it took effect is unknown)';

/** Where a checkpoint's events stop. */
export type CheckpointAt =
  /** Before any step (or nothing recorded): settle what the thread owes, then step 0. */
  | { kind: 'start' }
  /** Inside step `step`'s model call: it is withdrawn (`messageId`, if it began one) and made again. */
  | { kind: 'model'; step: number; messageId?: string }
  /** Step `step`'s model response is recorded; its tool calls without a result are settled next. */
  | { kind: 'tools'; step: number }
  /** Step `step` finished; the run decides whether to go on, then goes on at `step + 1`. */
  | { kind: 'after'; step: number };

/** A checkpoint read against the run's fold: where it stops, the usage so far, and the calls that may have begun. */
export interface ReadCheckpoint {
  at: CheckpointAt;
  /** Usage of the steps (and summaries) the events record as finished. */
  usage: Usage;
  /** Calls that may have started in the stopped process and have no recorded result. */
  interrupted: ReadonlySet<string>;
}

/**
 * Reads where `events` stop. `fold` is the run's fold with the events already folded on; `resumed`
 * says whether the run was given results or approvals to settle first (then its owed calls may
 * have started before any event was recorded).
 */
export function readCheckpoint(events: readonly Event[], fold: FoldState, resumed: boolean): ReadCheckpoint {
  let usage: Usage = {};
  let step = -1;
  let phase: 'model' | 'tools' | 'after' = 'model';
  let messageId: string | undefined;
  for (const event of events) {
    if (event.type === 'step-start') {
      step = event.step;
      phase = 'model';
      messageId = undefined;
    } else if (event.type === 'message-start' && phase === 'model') messageId = event.messageId;
    else if (event.type === 'finish' && phase === 'model') phase = 'tools';
    else if (event.type === 'step-finish') {
      phase = 'after';
      usage = addUsage(usage, event.usage);
    } else if (event.type === 'step-restarted') {
      phase = 'model';
      messageId = undefined;
    } else if (event.type === 'summary' && event.usage) usage = addUsage(usage, event.usage);
  }
  const messages = fold.messages;
  if (step < 0) return { at: { kind: 'start' }, usage, interrupted: new Set(resumed ? owedCalls(messages).map((c) => c.id) : []) };
  if (phase === 'model') return { at: messageId === undefined ? { kind: 'model', step } : { kind: 'model', step, messageId }, usage, interrupted: new Set() };
  if (phase === 'after') return { at: { kind: 'after', step }, usage, interrupted: new Set() };
  // The step's tool phase was cut: the trailing assistant message's calls with no result may have begun.
  return { at: { kind: 'tools', step }, usage, interrupted: new Set(unresolvedCalls(messages).map((c) => c.id)) };
}
