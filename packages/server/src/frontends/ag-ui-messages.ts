/**
 * AG-UI's `RunAgentInput` -> a protocol thread, the answers to a paused run, and the frontend
 * tools. Pure. The signed protocol messages come back in `state.parlance` (written by the AG-UI
 * stream); each AG-UI assistant, reasoning or tool message that names one of them (by id, see
 * ag-ui-events.ts) stands for it, signatures included, and the server verifies them as it
 * verifies any thread. User and system messages are taken as sent. An assistant, reasoning or
 * tool message that names none (another backend's, or hand-made) keeps only the assistant's
 * text: nothing unsigned may run or pass as a tool result.
 */
import type { Message as AgUiMessage, RunAgentInput } from '@ag-ui/core';
import { type Message, ParlanceError, type Part, pendingInputs, type ResumeInput, type ToolDefinition } from '@parlance/protocol';
import { AG_UI_ID_SEPARATOR, type ParlanceAgUiState } from './ag-ui-events.ts';

/**
 * What `agUiInputToThread` found in a `RunAgentInput`: the protocol messages, the answers to a pause, the frontend's tools.
 *
 * @example
 * const { messages, resume } = agUiInputToThread(input);
 */
export interface AgUiConversation {
  messages: Message[];
  resume?: ResumeInput;
  /** `RunAgentInput.tools`: tools the frontend runs, offered to the model as client tools. */
  clientTools: ToolDefinition[];
}

function carried(input: RunAgentInput): Message[] {
  const parlance = (input.state as Partial<ParlanceAgUiState> | undefined)?.parlance;
  if (!parlance || parlance.threadId !== input.threadId || !Array.isArray(parlance.messages)) return [];
  return parlance.messages;
}

function contentParts(content: unknown): Part[] {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  if (!Array.isArray(content)) return [];
  const parts: Part[] = [];
  for (const item of content as { type?: string; text?: string; mimeType?: string; source?: { type?: string; value?: string; mimeType?: string } }[]) {
    if (item.type === 'text' && typeof item.text === 'string') parts.push({ type: 'text', text: item.text });
    else if (item.source && typeof item.source.value === 'string') {
      const mediaType = item.source.mimeType ?? item.mimeType ?? 'application/octet-stream';
      // AG-UI 1.0 sources (https://docs.ag-ui.com/concepts/messages): `data` (base64), `url`, or `file`, an id in some
      // provider's file store, which means nothing to another provider: refused rather than sent as bytes.
      if (item.source.type === 'file') {
        throw new ParlanceError('invalid_request', `A ${item.type ?? 'file'} part names a provider file id ("${item.source.value.slice(0, 40)}"): send its bytes (a data source) or a URL`, { status: 400, retryable: false });
      }
      parts.push(item.source.type === 'url' ? { type: 'file', mediaType, url: item.source.value } : { type: 'file', mediaType, data: item.source.value });
    }
  }
  return parts;
}

function outputOf(content: unknown): unknown {
  if (typeof content !== 'string') return content;
  try {
    return JSON.parse(content) as unknown;
  } catch {
    return content;
  }
}

/**
 * Converts an AG-UI run's input into protocol messages, the answers it brings for a paused run
 * (frontend tool results in `messages`, interrupt answers in `resume`), and its frontend tools.
 *
 * @example
 * ```ts
 * const { messages, resume, clientTools } = agUiInputToThread(input);
 * ```
 */
export function agUiInputToThread(input: RunAgentInput): AgUiConversation {
  const signed = new Map(carried(input).map((m) => [m.id, m]));
  const messages: Message[] = [];
  const used = new Set<string>();
  const toolMessages: Extract<AgUiMessage, { role: 'tool' }>[] = [];
  for (const m of input.messages) {
    if (m.role === 'user' || m.role === 'system' || m.role === 'developer') {
      messages.push({ id: m.id, role: m.role === 'user' ? 'user' : 'system', parts: contentParts(m.content) });
      continue;
    }
    const base = m.id.split(AG_UI_ID_SEPARATOR)[0]!;
    const message = signed.get(base);
    if (message) {
      if (!used.has(base)) messages.push(message);
      used.add(base);
    } else if (m.role === 'tool') toolMessages.push(m);
    else if (m.role === 'assistant' && typeof m.content === 'string' && m.content) {
      messages.push({ id: m.id, role: 'assistant', parts: [{ type: 'text', text: m.content }] });
    }
  }
  const conversation: AgUiConversation = {
    messages,
    clientTools: input.tools.map((t) => ({ name: t.name, ...(t.description ? { description: t.description } : {}), inputSchema: (t.parameters as Record<string, unknown> | undefined) ?? { type: 'object', properties: {} } })),
  };
  const resume: ResumeInput = {};
  const answers = new Map((input.resume ?? []).map((entry) => [entry.interruptId, entry]));
  for (const owed of pendingInputs(messages)) {
    if (owed.kind === 'client-tool') {
      const result = toolMessages.find((t) => t.toolCallId === owed.toolCallId);
      if (result) (resume.toolResults ??= []).push({ toolCallId: owed.toolCallId, output: result.error ?? outputOf(result.content), ...(result.error !== undefined ? { isError: true } : {}) });
      continue;
    }
    const entry = answers.get(owed.toolCallId);
    if (!entry) continue;
    const payload = (entry.payload ?? {}) as { approved?: unknown; reason?: unknown; answer?: unknown };
    if (owed.kind === 'approval') {
      const approved = entry.status === 'resolved' && payload.approved !== false;
      (resume.approvals ??= []).push({ toolCallId: owed.toolCallId, approved, ...(typeof payload.reason === 'string' ? { reason: payload.reason } : {}) });
    } else if (entry.status === 'resolved') {
      const answer = typeof entry.payload === 'string' ? entry.payload : typeof payload.answer === 'string' ? payload.answer : JSON.stringify(entry.payload ?? '');
      (resume.answers ??= []).push({ toolCallId: owed.toolCallId, answer });
    }
  }
  if (resume.toolResults || resume.approvals || resume.answers) conversation.resume = resume;
  return conversation;
}
