/**
 * What a paused run waits for, as data: the kinds of input, one owed input, and the `pause`
 * record an assistant message carries (see pending.ts for the rule of what is still owed).
 * A leaf: message.ts and the schemas take these types without importing the rule.
 */

/**
 * How a paused run wants a tool call answered.
 *
 * @example
 * const kind: PendingKind = 'approval';
 */
export type PendingKind = 'approval' | 'client-tool' | 'ask-user';

/**
 * Something a paused run waits for from the user or the browser.
 *
 * @example
 * for (const p of pendingInputs(thread)) console.log(p.kind, p.name, p.toolCallId);
 */
export interface PendingInput {
  kind: PendingKind;
  toolCallId: string;
  /** The tool's name. */
  name: string;
  /** The call's input as the model produced it (shown to the user for an approval). */
  input?: unknown;
  /** The question of an `ask-user` call. */
  question?: string;
}

/**
 * A run paused on this assistant message, waiting for `waitingFor`. The server signs
 * it (`signature`) so a browser cannot invent or widen a pause.
 *
 * @example
 * const waiting = lastMessage.pause?.waitingFor ?? [];
 */
export interface RunPause {
  waitingFor: PendingInput[];
  signature?: string;
}

/**
 * Every pending kind, for validators and exhaustive switches.
 *
 * @example
 * const kinds = new Set(pendingInputs(thread).map((p) => p.kind)); // subset of PENDING_KINDS
 */
export const PENDING_KINDS = ['approval', 'client-tool', 'ask-user'] as const satisfies readonly PendingKind[];
