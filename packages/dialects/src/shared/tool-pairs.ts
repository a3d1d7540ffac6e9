/**
 * Every provider wants a tool call answered right after the turn that made it, and nothing
 * else: Chat Completions and Ollama want the `tool` messages right after the assistant
 * message, Anthropic the `tool_result` blocks first in the next user turn, Gemini as many
 * `functionResponse` parts in the next user turn, Responses a `function_call_output` for
 * every `function_call`. A thread does not always look like that: a run was cancelled before
 * its tools ran, a result arrived after a later assistant turn, a result sits before its call
 * (or inside the assistant message), a user message carries results and text together.
 *
 * `repairToolPairs` puts such a thread into the one shape every dialect encodes, so each
 * dialect repairs it the same way (also for callers that use a dialect directly, without the
 * engine's `withMissingResults`):
 * - each local tool result is paired with a call: the latest earlier call with its id that is
 *   still unanswered (ids repeat across turns: Gemini and Ollama number calls per response);
 *   with none earlier, the first later unanswered call with its id (a result written before
 *   its call); a second result for an answered call, or a result with no call, is dropped;
 * - the results of an assistant message's calls follow it at once, as one `tool` message, in
 *   the order of the calls;
 * - a call with no result gets an error result saying so (`MISSING_TOOL_RESULT`);
 * - provider-executed calls and results stay where they are (the provider ran them).
 * Messages left with no parts are dropped. The input is never modified.
 */
import type { Message, Part, ToolCallPart, ToolResultPart } from '@parlance/protocol';

/**
 * The output of the error result a call with no recorded result gets.
 *
 * @example
 * repairToolPairs(thread).flatMap((m) => m.parts).some((p) => p.type === 'tool-result' && p.output === MISSING_TOOL_RESULT);
 */
export const MISSING_TOOL_RESULT = 'No result was recorded for this tool call.';

interface Slot {
  call: ToolCallPart;
  /** Index of the call's message. */
  message: number;
  /** Position of the call in the thread: message index, then part index. */
  at: number;
  result?: ToolResultPart;
}

const isLocalCall = (part: Part): part is ToolCallPart => part.type === 'tool-call' && !part.providerExecuted;
const isLocalResult = (part: Part): part is ToolResultPart => part.type === 'tool-result' && !part.providerExecuted;

/**
 * The thread with each local tool call answered right after its assistant message (see the file
 * comment). Every dialect's `encodeRequest` applies it.
 *
 * @example
 * repairToolPairs([
 *   { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Paris?' }] },
 *   { id: 'a', role: 'assistant', parts: [{ type: 'tool-call', id: 'c1', name: 'weather', input: {} }] },
 * ]);
 * // [..., { id: 'a-results', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c1', name: 'weather', output: MISSING_TOOL_RESULT, isError: true }] }]
 */
export function repairToolPairs(messages: readonly Message[]): Message[] {
  // Positions are (message, part) packed into one number, so "before" is a comparison.
  const stride = Math.max(1, ...messages.map((m) => m.parts.length)) + 1;
  const slotsById = new Map<string, Slot[]>();
  const slotsByMessage = new Map<number, Slot[]>();
  messages.forEach((message, m) => {
    if (message.role !== 'assistant') return;
    message.parts.forEach((part, p) => {
      if (!isLocalCall(part)) return;
      const slot: Slot = { call: part, message: m, at: m * stride + p };
      const same = slotsById.get(part.id);
      if (same) same.push(slot);
      else slotsById.set(part.id, [slot]);
      const own = slotsByMessage.get(m);
      if (own) own.push(slot);
      else slotsByMessage.set(m, [slot]);
    });
  });

  let changed = false;
  messages.forEach((message, m) => {
    message.parts.forEach((part, p) => {
      if (!isLocalResult(part)) return;
      const at = m * stride + p;
      const slots = slotsById.get(part.toolCallId) ?? [];
      // The latest earlier message with an unanswered call of this id; in it, the first such call
      // (parallel calls that share an id are answered in order).
      let target: Slot | undefined;
      for (const slot of slots) {
        if (slot.at < at && slot.result === undefined && (target === undefined || slot.message > target.message)) target = slot;
      }
      if (target === undefined && !slots.some((slot) => slot.at < at)) target = slots.find((slot) => slot.result === undefined);
      if (target) target.result = part;
    });
  });

  const out: Message[] = [];
  messages.forEach((message, m) => {
    const slots = slotsByMessage.get(m);
    // Parallel calls that share an id (a provider that numbers nothing) get distinct ids, so each
    // result can name its own call.
    const renamed = new Map<ToolCallPart, string>();
    if (slots) {
      const taken = new Set(slots.map((slot) => slot.call.id));
      const seen = new Set<string>();
      for (const slot of slots) {
        if (!seen.has(slot.call.id)) {
          seen.add(slot.call.id);
          continue;
        }
        let n = 2;
        while (taken.has(`${slot.call.id}_${n}`)) n++;
        const id = `${slot.call.id}_${n}`;
        taken.add(id);
        renamed.set(slot.call, id);
      }
    }
    const kept = message.parts.flatMap((part): Part[] => {
      if (isLocalResult(part)) return [];
      const id = part.type === 'tool-call' ? renamed.get(part) : undefined;
      return [id === undefined ? part : { ...(part as ToolCallPart), id }];
    });
    if (kept.length !== message.parts.length || renamed.size > 0) changed = true;
    if (kept.length > 0) out.push(kept.length === message.parts.length && renamed.size === 0 ? message : { ...message, parts: kept });
    if (!slots) return;
    const results = slots.map((slot): ToolResultPart => {
      const toolCallId = renamed.get(slot.call) ?? slot.call.id;
      if (!slot.result) return { type: 'tool-result', toolCallId, name: slot.call.name, output: MISSING_TOOL_RESULT, isError: true };
      // The result names its call (Gemini and Ollama match results to calls by name).
      return slot.result.toolCallId === toolCallId && slot.result.name === slot.call.name ? slot.result : { ...slot.result, toolCallId, name: slot.call.name };
    });
    changed = true;
    out.push({ id: `${message.id}-results`, role: 'tool', parts: results });
  });
  return changed ? out : messages.slice();
}
