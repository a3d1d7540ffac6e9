/**
 * A failed turn stays in the thread (the assistant message that failed carries `error`,
 * written by the fold at `chat-finish`), but not in what a model is sent: a failed message
 * with no parts and the user turn it failed to answer are left out. Otherwise the encoders,
 * which merge consecutive turns of one role (providers require alternation), would fold the
 * next user message into the failed one, and an input that made the provider fail (or the
 * demo model's "error") would fail every later message of the thread too (issue #12).
 * A failed message with content (an answer cut by an error) is kept: the model wrote it.
 */
import type { Message } from '@parlance/protocol';

/** `messages` without failed empty assistant messages and the user messages right before each. */
export function withoutFailedTurns(messages: readonly Message[]): Message[] {
  if (!messages.some((m) => m.error && m.parts.length === 0)) return messages as Message[];
  const out: Message[] = [];
  for (const message of messages) {
    if (message.role === 'assistant' && message.error && message.parts.length === 0) {
      while (out.at(-1)?.role === 'user') out.pop();
      continue;
    }
    out.push(message);
  }
  return out;
}
