/**
 * Pending tool calls live in the thread itself: the calls of the last assistant
 * message that have no result yet. So a stateless server can resume from the
 * thread a browser sends back, with no state of its own.
 */
import { type Message, pendingInputs, type ToolCallPart, type ToolResultPart } from '@parlance/protocol';

function resultIds(messages: readonly Message[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    for (const part of message.parts) if (part.type === 'tool-result') ids.add(part.toolCallId);
  }
  return ids;
}

/**
 * Calls of the trailing assistant message (followed only by tool messages) with no result yet,
 * paused or not. What a paused run waits for is `pendingInputs` (protocol) / `owedCalls`; this
 * is for checking a browser-held thread (a call with no result that no pause lists is refused).
 */
export function unresolvedCalls(messages: readonly Message[]): ToolCallPart[] {
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role === 'tool') i--;
  const last = messages[i];
  if (!last || last.role !== 'assistant') return [];
  const done = resultIds(messages.slice(i));
  return last.parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && !p.providerExecuted && !done.has(p.id));
}

/**
 * The tool calls a paused thread still owes, as the parts the loop acts on. Which calls are
 * owed is decided by the protocol's `pendingInputs` (the thread's pause minus answered calls),
 * the one rule the server and the client use too.
 */
export function owedCalls(messages: readonly Message[]): ToolCallPart[] {
  const owed = new Set(pendingInputs(messages).map((p) => p.toolCallId));
  if (owed.size === 0) return [];
  let i = messages.length - 1;
  while (i >= 0 && messages[i]!.role === 'tool') i--;
  return messages[i]!.parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && owed.has(p.id));
}

export const MISSING_RESULT = 'No result: this tool call was not completed.';

/**
 * History as sent to a model: every earlier call without a result (a cancelled run,
 * a conversation continued past a pending call) gets an error result, because
 * providers reject a tool call with no answer.
 */
export function withMissingResults(messages: readonly Message[]): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    out.push(message);
    if (message.role !== 'assistant') continue;
    // A call is answered by a result before the next assistant turn. Ids are only unique per
    // response (Gemini and Ollama number their calls call_0, call_1, ... each time), so a result
    // from an earlier round must not count for a later call with the same id.
    let next = i + 1;
    while (next < messages.length && messages[next]!.role !== 'assistant') next++;
    const done = resultIds(messages.slice(i + 1, next));
    const missing = message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call' && !p.providerExecuted && !done.has(p.id));
    if (missing.length === 0) continue;
    const parts: ToolResultPart[] = missing.map((call) => ({
      type: 'tool-result',
      toolCallId: call.id,
      name: call.name,
      output: MISSING_RESULT,
      isError: true,
    }));
    const following = messages[i + 1];
    if (following?.role === 'tool') {
      out.push({ ...following, parts: [...following.parts, ...parts] });
      i++;
    } else {
      out.push({ id: `${message.id}-missing-results`, role: 'tool', parts });
    }
  }
  return out;
}
