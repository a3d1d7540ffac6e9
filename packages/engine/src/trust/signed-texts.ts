/**
 * The texts a signature covers (see thread-trust.ts): a tool call, a tool result and a pause, each
 * as canonical JSON that starts with the principal and the thread it was issued for.
 */
import type { Message, PendingInput, ToolCallPart, ToolResultPart } from '@parlance/protocol';
import { canonicalJson } from './canonical-json.ts';

/**
 * Whom and what a signature is issued for: the principal's id (null without principals) and the
 * thread's id. Every signed text starts with both, so a part, result or pause signed for one
 * principal or thread never verifies for another.
 */
export interface Scope {
  principal: string | null;
  threadId: string;
}

export function callText({ principal, threadId }: Scope, message: Message, index: number, part: ToolCallPart): string {
  return canonicalJson(['call', principal, threadId, message.id, message.role, index, part.id, part.name, part.input, part.providerExecuted === true]);
}

/** The signature of the call a result answers: the same message (provider-executed) or the assistant message before the tool messages. */
function answeredCallSignature(messages: readonly Message[], at: number, toolCallId: string): string {
  let i = at;
  if (messages[i]!.role !== 'assistant') {
    i--;
    while (i >= 0 && messages[i]!.role === 'tool') i--;
  }
  const owner = messages[i];
  if (owner?.role !== 'assistant') return '';
  const call = owner.parts.find((p): p is ToolCallPart => p.type === 'tool-call' && p.id === toolCallId);
  return call?.signature ?? '';
}

export function resultText({ principal, threadId }: Scope, messages: readonly Message[], at: number, index: number, part: ToolResultPart): string {
  const message = messages[at]!;
  const call = answeredCallSignature(messages, at, part.toolCallId);
  return canonicalJson([
    'result',
    principal,
    threadId,
    message.id,
    message.role,
    index,
    part.toolCallId,
    part.name,
    part.output,
    part.isError === true,
    part.providerExecuted === true,
    call,
  ]);
}

export function pauseText({ principal, threadId }: Scope, message: Message, waitingFor: readonly PendingInput[]): string {
  const waiting = waitingFor.map((w) => [w.kind, w.toolCallId, w.name, w.input, w.question]);
  const calls = message.parts.filter((p): p is ToolCallPart => p.type === 'tool-call').map((p) => p.signature ?? '');
  return canonicalJson(['pause', principal, threadId, message.id, waiting, calls]);
}

