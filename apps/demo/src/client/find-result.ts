import type { Message, ToolResultPart } from '@parlance/protocol';

/**
 * The result of a call: in the call's own message (provider-executed tools) or in the
 * tool messages right after it. Only that round is searched, because providers that
 * number calls per response (Gemini, Ollama: call_0, call_1, ...) reuse ids across rounds.
 */
export function findResult(messages: Message[], messageId: string, toolCallId: string): ToolResultPart | undefined {
  const start = messages.findIndex((m) => m.id === messageId);
  if (start < 0) return undefined;
  for (let i = start; i < messages.length; i++) {
    const m = messages[i]!;
    if (i > start && m.role !== 'tool') break;
    for (const p of m.parts) if (p.type === 'tool-result' && p.toolCallId === toolCallId) return p;
  }
  return undefined;
}
