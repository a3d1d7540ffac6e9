/**
 * The AI SDK's UI messages (what `useChat` posts) -> a protocol thread, and the answers to a
 * paused run (`ResumeInput`). Pure. An assistant UI message that carries Parlance metadata
 * (`metadata.parlance.messages`, written by the UI message stream, see ui-metadata.ts) stands for
 * exactly those protocol messages, signatures included; the server verifies them as it verifies
 * any thread.
 * An assistant message without it (from another backend, or hand-made) keeps its text, reasoning
 * and files; its tool parts are dropped, since nothing unsigned may run or pass as a result.
 */
import { type FilePart, type Message, type Part, pendingInputs, type ResumeInput } from '@parlance/protocol';
import type { UIMessage } from 'ai';
import { metadataMessages, type ParlanceUiMetadata } from './ui-metadata.ts';

/**
 * What `uiMessagesToThread` found: the thread's messages, and the answers when the last UI message continues a pause.
 *
 * @example
 * const { messages, resume } = uiMessagesToThread(body.messages, body.id);
 */
export interface UiConversation {
  messages: Message[];
  resume?: ResumeInput;
  /** The UI message a resumed run continues, and the protocol messages it already stands for. */
  continued?: { messageId: string; prior: Message[] };
  /** Calls denied in `resume`. */
  denied: string[];
}

type AnyPart = UIMessage['parts'][number] & Record<string, unknown>;

function isToolPart(part: AnyPart): boolean {
  return (part.type.startsWith('tool-') || part.type === 'dynamic-tool') && typeof part.toolCallId === 'string';
}

function parlanceOf(message: UIMessage, threadId: string): Message[] | undefined {
  const meta = (message.metadata as Partial<ParlanceUiMetadata> | undefined)?.parlance;
  if (!meta || meta.threadId !== threadId) return undefined;
  return metadataMessages(message, meta.messages);
}

function providerState(part: AnyPart): Record<string, unknown> {
  const parlance = (part.providerMetadata as { parlance?: { providerState?: Record<string, unknown>; signature?: string; redacted?: boolean } } | undefined)?.parlance;
  const out: Record<string, unknown> = {};
  if (parlance?.providerState && typeof parlance.providerState === 'object') out.providerState = parlance.providerState;
  return out;
}

function filePart(part: AnyPart): FilePart | undefined {
  const url = part.url;
  const mediaType = part.mediaType;
  if (typeof url !== 'string' || typeof mediaType !== 'string') return undefined;
  const data = /^data:[^;,]*;base64,(.*)$/s.exec(url);
  const named = typeof part.filename === 'string' ? { filename: part.filename } : {};
  return data ? { type: 'file', mediaType, data: data[1]!, ...named } : { type: 'file', mediaType, url, ...named };
}

/** The parts of a user, system or plain assistant UI message the protocol can carry unsigned. */
function plainParts(message: UIMessage): Part[] {
  const parts: Part[] = [];
  for (const raw of message.parts) {
    const part = raw as AnyPart;
    if (part.type === 'text' && typeof part.text === 'string') parts.push({ type: 'text', text: part.text, ...providerState(part) });
    else if (part.type === 'reasoning' && typeof part.text === 'string' && message.role === 'assistant') {
      const signature = (part.providerMetadata as { parlance?: { signature?: unknown } } | undefined)?.parlance?.signature;
      parts.push({ type: 'reasoning', text: part.text, ...(typeof signature === 'string' ? { signature } : {}), ...providerState(part) });
    } else if (part.type === 'file') {
      const file = filePart(part);
      if (file) parts.push(file);
    }
  }
  return parts;
}

/**
 * Converts `useChat`'s messages into protocol messages, and the tool answers in the last
 * assistant message (approval responses, client tool outputs) into a `ResumeInput`.
 *
 * @example
 * ```ts
 * const { messages, resume } = uiMessagesToThread(body.messages, body.id);
 * const request: ChatRequestBody = { thread: { id: body.id, version: 1, messages }, resume, clientRequestId };
 * ```
 */
export function uiMessagesToThread(uiMessages: readonly UIMessage[], threadId: string): UiConversation {
  const messages: Message[] = [];
  for (const ui of uiMessages) {
    const carried = ui.role === 'assistant' ? parlanceOf(ui, threadId) : undefined;
    if (carried) messages.push(...carried);
    else messages.push({ id: ui.id, role: ui.role, parts: plainParts(ui) });
  }
  const conversation: UiConversation = { messages, denied: [] };
  const last = uiMessages.at(-1);
  const prior = last?.role === 'assistant' ? parlanceOf(last, threadId) : undefined;
  if (!last || !prior) return conversation;
  const resume: ResumeInput = {};
  for (const owed of pendingInputs(messages)) {
    const part = last.parts.find((p) => isToolPart(p as AnyPart) && (p as AnyPart).toolCallId === owed.toolCallId) as AnyPart | undefined;
    if (!part) continue;
    const state = part.state;
    const approval = part.approval as { approved?: boolean; reason?: string } | undefined;
    if (owed.kind === 'approval' && (state === 'approval-responded' || state === 'output-denied') && typeof approval?.approved === 'boolean') {
      (resume.approvals ??= []).push({ toolCallId: owed.toolCallId, approved: approval.approved, ...(typeof approval.reason === 'string' ? { reason: approval.reason } : {}) });
      if (!approval.approved) conversation.denied.push(owed.toolCallId);
    } else if (owed.kind === 'client-tool' && state === 'output-available') {
      (resume.toolResults ??= []).push({ toolCallId: owed.toolCallId, output: part.output });
    } else if (owed.kind === 'client-tool' && state === 'output-error') {
      (resume.toolResults ??= []).push({ toolCallId: owed.toolCallId, output: String(part.errorText ?? ''), isError: true });
    } else if (owed.kind === 'ask-user' && state === 'output-available') {
      (resume.answers ??= []).push({ toolCallId: owed.toolCallId, answer: typeof part.output === 'string' ? part.output : JSON.stringify(part.output) });
    }
  }
  if (resume.approvals || resume.toolResults || resume.answers) {
    conversation.resume = resume;
    conversation.continued = { messageId: last.id, prior };
  }
  return conversation;
}
