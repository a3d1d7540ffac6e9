/**
 * What a paused run waits for, kept in the thread itself: the assistant message a
 * run paused on carries a `pause` record (written by the `run-paused` event through
 * the fold), so a thread saved in the browser and reloaded still knows it is waiting
 * for an approval, an answer or a client tool result. `pendingInputs` is the one
 * rule for "what is still owed"; the engine, the server and the client all use it.
 */
import type { Message, ToolResultPart } from './message.ts';
import type { PendingInput } from './pause.ts';

/**
 * The inputs a thread still owes its paused run: the `pause` of the trailing assistant
 * message (only tool messages may follow it), minus the calls a later tool result
 * already answers. A thread whose last turn is the user's owes nothing: the user moved on.
 *
 * @example
 * ```ts
 * import { pendingInputs } from '@parlance/protocol';
 * const owed = pendingInputs(thread.messages);
 * if (owed.some((p) => p.kind === 'approval')) showApprovalBar(owed);
 * ```
 */
export function pendingInputs(messages: readonly Message[]): PendingInput[] {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role === 'tool') i--;
  const paused = messages[i];
  if (!paused || paused.role !== 'assistant' || !paused.pause) return [];
  const answered = new Set<string>();
  for (let j = i + 1; j < messages.length; j++)
    for (const part of messages[j]!.parts) if (part.type === 'tool-result') answered.add((part as ToolResultPart).toolCallId);
  // Results may also sit in the paused message itself (provider-executed tools); those are not owed either.
  for (const part of paused.parts) if (part.type === 'tool-result') answered.add(part.toolCallId);
  return paused.pause.waitingFor.filter((p) => !answered.has(p.toolCallId));
}
