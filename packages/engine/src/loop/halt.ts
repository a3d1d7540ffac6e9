/**
 * Why a run stops, and the decisions that say so: each a small function of what the step
 * produced, so the loop reads as a list of questions and each answer is testable alone.
 */
import { ParlanceError, type ErrorCode, type HaltReason, type PendingKind, type Response } from '@parlance/protocol';
import type { ToolErrorPolicy } from '../options.ts';
import { HookError, isAbort, type CallOutcome } from './run-tool.ts';

/** The one reason a run stops (with the error, when it failed). Thrown from a phase, it ends the loop. */
export class Halt {
  constructor(
    readonly reason: HaltReason,
    readonly error?: { code: ErrorCode; message: string },
  ) {}
}

/** The model's response ended the run: it failed, was cut, or was stopped by a length or content limit. */
export function modelEndHalt(response: Response): Halt | undefined {
  const reason = response.finishReason;
  if (reason === 'error' || reason === 'cancelled') {
    const error = response.error ?? { code: 'unknown' as const, message: 'The model response failed' };
    return new Halt('error', { code: error.code, message: error.message });
  }
  if (reason === 'length') return new Halt('length');
  if (reason === 'content-filter' || reason === 'refusal') return new Halt('content-filter');
  return undefined;
}

/** What the run pauses for, the first of: an approval, a user's answer, a client tool's result. */
export function pauseHalt(waiting: ReadonlySet<PendingKind>): Halt | undefined {
  if (waiting.has('approval')) return new Halt('approval');
  if (waiting.has('ask-user')) return new Halt('ask-user');
  if (waiting.has('client-tool')) return new Halt('client-tool-calls');
  return undefined;
}

/** A failed tool halts the run when the policy says so (`onToolError`). */
export function toolErrorHalt(policy: ToolErrorPolicy, outcome: Extract<CallOutcome, { type: 'result' }>): Halt | undefined {
  if (outcome.toolError === undefined) return undefined;
  const decision = typeof policy === 'function' ? policy(outcome.toolError, { toolCallId: outcome.call.id, name: outcome.call.name, input: outcome.call.input }) : policy;
  if (decision !== 'halt') return undefined;
  const text = typeof outcome.output === 'string' ? outcome.output : 'A tool failed';
  return new Halt('tool-error', { code: 'tool_error', message: text });
}

/** A step that asked for no tool call and did not pause is the last one. */
export function answeredHalt(response: Response, toolCalls: number): Halt | undefined {
  return toolCalls === 0 && response.finishReason !== 'pause' ? new Halt('completed') : undefined;
}

/** What an exception out of the loop means: a halt a phase threw, a cancel, or an error (a hook's, named). */
export function haltOfError(error: unknown, aborted: boolean): Halt {
  if (error instanceof Halt) return error;
  if (aborted || isAbort(error)) return new Halt('cancelled');
  const failure = error instanceof HookError ? new ParlanceError('unknown', error.message, { cause: error.original }) : ParlanceError.from(error);
  return new Halt('error', { code: failure.code, message: failure.message });
}
