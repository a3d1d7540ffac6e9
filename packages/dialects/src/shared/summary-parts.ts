/**
 * Summary parts (the engine's summary of older messages, see SummaryPart) have no wire
 * form in any API: every encoder sends them as plain text where they stand (a user
 * message, where the engine puts them).
 */
import type { Message, ModelRequest, Part } from '@parlance/protocol';

function asText(parts: Part[]): Part[] {
  return parts.map((part) => (part.type === 'summary' ? { type: 'text', text: part.text } : part));
}

/** The request with every summary part turned into a text part (the same object when there is none). */
export function summariesAsText<R extends Pick<ModelRequest, 'messages'>>(request: R): R {
  if (!request.messages.some((m) => m.parts.some((p) => p.type === 'summary'))) return request;
  const messages: Message[] = request.messages.map((m) => (m.parts.some((p) => p.type === 'summary') ? { ...m, parts: asText(m.parts) } : m));
  return { ...request, messages };
}
