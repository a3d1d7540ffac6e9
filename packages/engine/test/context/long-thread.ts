/**
 * Long threads for the context-window tests, made the way an app makes them: every
 * assistant turn is DECODED from the dialect's wire format (bytes from the wire encoders
 * of @parlance/testing), so reasoning signatures, encrypted reasoning, item ids and
 * synthesized call ids sit in providerState exactly as a real stream leaves them.
 * Each round: a user question, an assistant turn with reasoning and a tool call, the
 * tool's (long) result, the assistant's answer.
 */

import type { DialectId } from '@parlance/dialects';
import type { Message, Part } from '@parlance/protocol';
import { decodeAssistant, modelFor } from '../../../dialects/test/handoff-thread.ts';
import { type ScriptedTurn, turnToEvents } from '../../../testing/src/script.ts';
import { encodeEvents } from '../../../testing/src/wire/encode.ts';

/** Signatures only where the dialect carries one. */
const SIGNED: Partial<Record<DialectId, string>> = {
  anthropic_messages: 'EqQBCkgIBxABGAIqQ-sig',
  openai_responses: 'gAAAAABo-encrypted',
  google_gemini: 'CiQBcsja-thought',
};

/** Tool-call ids as the provider mints them (Gemini and Ollama send none: the decoder makes them). */
function callId(dialect: DialectId, round: number): string | undefined {
  if (dialect === 'anthropic_messages') return `toolu_01round${round}`;
  if (dialect === 'openai_responses') return `call_round${round}`;
  if (dialect === 'openai_completions') return `call_r${round}`;
  return undefined;
}

const words = (n: number, seed: number) => Array.from({ length: n }, (_, i) => `word${(i * 7 + seed) % 97}`).join(' ');

async function decodeTurn(dialect: DialectId, turn: ScriptedTurn, call: number): Promise<Message> {
  // Block ids get the call number: the Responses wire derives item ids from them, and a real API never repeats one.
  const events = turnToEvents(turn, call).map((event) =>
    'id' in event && (event.type.startsWith('text-') || event.type.startsWith('reasoning-')) ? { ...event, id: `${event.id}_${call}` } : event,
  );
  const bytes = new TextEncoder().encode(encodeEvents(dialect, events, { model: modelFor(dialect), responseId: `resp_${dialect}_${call}` }));
  return decodeAssistant(dialect, bytes, call + 1);
}

/** `rounds` rounds of question, tool call, result, answer; about 900 estimated tokens a round. */
export async function longThread(dialect: DialectId, rounds: number): Promise<Message[]> {
  const messages: Message[] = [];
  for (let r = 0; r < rounds; r++) {
    messages.push({ id: `user-${r}`, role: 'user', parts: [{ type: 'text', text: `Question ${r}: ${words(120, r)}` }] });
    const id = callId(dialect, r);
    const turn: ScriptedTurn = {
      reasoning: `Round ${r}: I should look this up. ${words(40, r + 1)}`,
      text: 'Let me look that up.',
      toolCalls: [{ ...(id === undefined ? {} : { id }), name: 'lookup', input: { query: `topic ${r}` } }],
      usage: { inputTokens: 100, outputTokens: 20 },
    };
    if (SIGNED[dialect]) turn.reasoningSignature = `${SIGNED[dialect]}-${r}`;
    const calling = { ...(await decodeTurn(dialect, turn, 2 * r)), id: `assistant-${r}` };
    const calls = calling.parts.filter((p): p is Extract<Part, { type: 'tool-call' }> => p.type === 'tool-call');
    messages.push(calling, {
      id: `tool-${r}`,
      role: 'tool',
      parts: calls.map((c) => ({ type: 'tool-result', toolCallId: c.id, name: c.name, output: { found: words(600, r + 2) } })),
    });
    const answer = await decodeTurn(dialect, { text: `Answer ${r}: ${words(100, r + 3)}`, usage: { inputTokens: 100, outputTokens: 20 } }, 2 * r + 1);
    messages.push({ ...answer, id: `answer-${r}` });
  }
  return messages;
}
