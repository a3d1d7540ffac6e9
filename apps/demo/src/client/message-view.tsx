/**
 * One message, subscribed on its own (`useMessage`): while an answer streams only
 * its row re-renders. Text is Markdown; reasoning sits in a collapsed block; tool
 * calls show their arguments, their result (found in the tool message that answers
 * them) and, when the run waits for it, an approve / deny prompt.
 */
import { MessageFiles } from './attachments.tsx';
import type { PendingInput } from '@parlance/client';
import { addUsage, type Message, type Part, type ReasoningPart, type SummaryPart, type ToolCallPart, type ToolResultPart, type Usage } from '@parlance/protocol';
import { useChatStore, useMessage } from '@parlance/react';
import { useCallback, useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CodeBlock } from './code-block.tsx';
import { findResult } from './find-result.ts';
import { formatJson, formatUsage } from './format.ts';
import { ToolIcon } from './icons.tsx';
import { completePartialMarkdown } from './partial-markdown.ts';

function useToolResult(messageId: string, toolCallId: string): ToolResultPart | undefined {
  const store = useChatStore();
  const get = () => findResult(store.getSnapshot().thread.messages, messageId, toolCallId);
  return useSyncExternalStore(store.subscribe, get, get);
}

function usePending(toolCallId: string): PendingInput | undefined {
  const store = useChatStore();
  const get = () => store.getSnapshot().pending.find((p) => p.toolCallId === toolCallId);
  return useSyncExternalStore(store.subscribe, get, get);
}

function Reasoning({ part, streaming }: { part: ReasoningPart; streaming: boolean }) {
  // Open while the model thinks (as chat products show it), folded once the answer starts; the reader can still toggle it.
  const [open, setOpen] = useState(streaming);
  useEffect(() => setOpen(streaming), [streaming]);
  if (part.redacted) return <div className="reasoning redacted">Reasoning withheld by the provider</div>;
  return (
    <details className="reasoning" open={open} onToggle={(e) => setOpen(e.currentTarget.open)}>
      <summary>{streaming ? 'Thinking…' : 'Reasoning'}</summary>
      <div className="reasoning-text">{part.text}</div>
    </details>
  );
}

/** GitHub-flavoured Markdown (tables, strikethrough, task lists), which is what models write. */
const GFM = [remarkGfm];
/** Code blocks get a Copy button and highlighting; wide tables scroll inside their own box instead of widening the page. */
const MARKDOWN_COMPONENTS: Components = {
  pre: CodeBlock,
  table: ({ node, ...props }) => (
    <div className="table-scroll">
      <table {...props} />
    </div>
  ),
};

/** The engine's words for a call the user denied (packages/engine run-tool.ts): a choice, not a failure. */
const DENIED = /^The user denied this tool call/;

const isLive = (status: string) => status === 'submitted' || status === 'streaming';

function ToolCall({ part, messageId }: { part: ToolCallPart; messageId: string }) {
  const store = useChatStore();
  const result = useToolResult(messageId, part.id);
  const pending = usePending(part.id);
  const waiting = pending?.kind === 'approval';
  const denied = result?.isError === true && typeof result.output === 'string' && DENIED.test(result.output);
  const failed = result?.isError === true && !denied;
  const asking = pending?.kind === 'ask-user' ? pending : undefined;
  const clientTool = pending?.kind === 'client-tool';
  // Without a result or a pending input, a call runs only while its run is live; otherwise it never ran (a cancelled run).
  const live = useSyncExternalStore(store.subscribe, () => isLive(store.getSnapshot().status), () => false);
  const state = result
    ? denied
      ? 'denied'
      : failed
        ? 'error'
        : 'done'
    : waiting
      ? 'needs approval'
      : asking
        ? 'needs an answer'
        : clientTool
          ? 'needs your browser'
          : live
            ? 'running…'
            : 'not run';
  return (
    <div className={`tool-call ${failed ? 'is-error' : ''}`} data-testid="tool-call" data-tool={part.name}>
      <div className="tool-head">
        <span className="tool-icon">
          <ToolIcon />
        </span>
        <code className="tool-name">{part.name}</code>
        <span className={`tool-state state-${state.replace(/\W+/g, '-')}`}>{state}</span>
      </div>
      <div className="tool-section-label">Arguments</div>
      <pre className="tool-args">{part.input === undefined ? '…' : formatJson(part.input)}</pre>
      {result && (
        <>
          <div className="tool-section-label">Result</div>
          <pre className="tool-result" data-testid="tool-result">
            {formatJson(result.output)}
          </pre>
        </>
      )}
      {waiting && (
        <div className="approval">
          <span>
            Run <code>{part.name}</code> with these arguments?
          </span>
          <button type="button" className="primary" onClick={() => void store.approve(part.id)}>
            Approve
          </button>
          <button type="button" onClick={() => void store.deny(part.id)}>
            Deny
          </button>
        </div>
      )}
      {asking && <AskUser question={asking.question ?? ''} onAnswer={(answer) => void store.answer(part.id, answer)} />}
      {clientTool && (
        <div className="approval">
          <span>The browser answers this call (demo: a made-up location).</span>
          <button type="button" className="primary" onClick={() => void store.submitToolResult(part.id, { city: 'Lisbon' })}>
            Share location
          </button>
        </div>
      )}
    </div>
  );
}

/** A tool's question to the user (`askUser` on the server); the answer resumes the run. */
function AskUser({ question, onAnswer }: { question: string; onAnswer: (answer: string) => void }) {
  const [answer, setAnswer] = useState('');
  return (
    <form
      className="approval"
      onSubmit={(e) => {
        e.preventDefault();
        if (answer.trim()) onAnswer(answer.trim());
      }}
    >
      <label>
        {question} <input aria-label="Answer" value={answer} onChange={(e) => setAnswer(e.currentTarget.value)} />
      </label>
      <button type="submit" className="primary">
        Answer
      </button>
    </form>
  );
}

/** Usage of a whole turn (every response of a tool loop), live while the last one streams. */
function useTurnUsage(turn: readonly string[], streaming: boolean): string | undefined {
  const store = useChatStore();
  const get = () => {
    let total: Usage | undefined;
    for (const id of turn) {
      const usage = store.getMessage(id)?.metadata?.usage as Usage | undefined;
      if (usage) total = addUsage(total ?? {}, usage);
    }
    // The streaming response has no usage of its own yet: show what the provider reported so far.
    const live = streaming ? (store.getSnapshot().run?.fold?.usage as Usage | undefined) : undefined;
    if (live && Object.keys(live).length) total = addUsage(total ?? {}, live);
    return formatUsage(total);
  };
  // A finished turn's footer listens to its own messages only; just the streaming one follows every publication.
  const subscribe = useCallback(
    (listener: () => void) => {
      const offs = turn.map((id) => store.subscribeMessage(id, listener));
      if (streaming) offs.push(store.subscribe(listener));
      return () => {
        for (const off of offs) off();
      };
    },
    [store, turn, streaming],
  );
  return useSyncExternalStore(subscribe, get, get);
}

function Footer({ message, turn, streaming }: { message: Message; turn: readonly string[]; streaming: boolean }) {
  const usage = useTurnUsage(turn, streaming);
  const model = message.provenance?.model;
  if (!usage && !model) return null;
  return (
    <div className="message-footer">
      {model && <span className="model">{message.provenance?.provider}:{model}</span>}
      {usage && <span data-testid="usage">{usage}</span>}
    </div>
  );
}

function PartView({ part, streaming, messageId }: { part: Part; streaming: boolean; messageId: string }) {
  switch (part.type) {
    case 'reasoning':
      return <Reasoning part={part} streaming={streaming} />;
    case 'text':
      return (
        <div className="markdown" data-testid="answer-text">
          <ReactMarkdown remarkPlugins={GFM} components={MARKDOWN_COMPONENTS}>{streaming ? completePartialMarkdown(part.text) : part.text}</ReactMarkdown>
        </div>
      );
    case 'tool-call':
      return <ToolCall part={part} messageId={messageId} />;
    case 'source':
      return (
        <a className="source" href={part.url} target="_blank" rel="noreferrer">
          {part.title ?? part.url}
        </a>
      );
    default:
      return null;
  }
}

/** A failed turn kept in the thread; the last one of a chat in error is shown by the chat's alert instead. */
function FailedTurn({ id, message }: { id: string; message: string }) {
  const store = useChatStore();
  const get = () => {
    const s = store.getSnapshot();
    return s.status === 'error' && s.thread.messages.at(-1)?.id === id;
  };
  if (useSyncExternalStore(store.subscribe, get, get)) return null;
  return (
    <div className="row assistant" data-testid="failed-turn">
      <div className="failed-turn">No answer: {message}</div>
    </div>
  );
}

/**
 * The engine's summary of older messages (the thread outgrew the model's window): shown
 * where it was made, folded, like the "conversation compacted" notes of chat products.
 * The messages above it stay readable; the model now gets this instead of them.
 */
function SummaryView({ part }: { part: SummaryPart }) {
  return (
    <div className="row summary" data-testid="summary">
      <details className="summary-box">
        <summary>Earlier messages were summarized to fit the model's context window</summary>
        <div className="summary-text">{part.text}</div>
      </details>
    </div>
  );
}

/**
 * The `‹ 2/3 ›` arrows of a message that was edited or regenerated (as chat products show
 * them): the other versions stay in the thread, and an arrow puts one on screen.
 */
function Versions({ id, version, disabled }: { id: string; version: { index: number; count: number }; disabled: boolean }) {
  const store = useChatStore();
  const { index, count } = version;
  return (
    <div className="versions" data-testid="versions">
      <button type="button" aria-label="Previous version" disabled={disabled || index === 0} onClick={() => store.switchBranch(id, index - 1)}>
        ‹
      </button>
      <span>
        {index + 1}/{count}
      </span>
      <button type="button" aria-label="Next version" disabled={disabled || index === count - 1} onClick={() => store.switchBranch(id, index + 1)}>
        ›
      </button>
    </div>
  );
}

/**
 * A user message, with Edit: the edited text is sent as a new version with the message's files (each
 * can be removed in the editor); the old version stays (see Versions).
 */
function UserMessage({ id, text, canEdit, versions, parts }: { id: string; text: string; canEdit: boolean; versions: ReactNode; parts: readonly Part[] }) {
  const store = useChatStore();
  const [draft, setDraft] = useState<string | undefined>(undefined);
  const [removed, setRemoved] = useState<readonly Part[]>([]);
  const kept = parts.filter((p) => p.type !== 'text' && !removed.includes(p));
  if (draft !== undefined)
    return (
      <form
        className="row user editing"
        data-testid="user-message-editor"
        onSubmit={(e) => {
          e.preventDefault();
          if (!draft.trim() && kept.length === 0) return;
          setDraft(undefined);
          setRemoved([]);
          // The whole new message: the text, and the files not removed (sent again as their references).
          void store.edit(id, [...(draft.trim() ? [{ type: 'text' as const, text: draft.trim() }] : []), ...kept]);
        }}
      >
        <MessageFiles parts={kept} onRemove={(file) => setRemoved((r) => [...r, file])} />
        <textarea aria-label="Edit message" value={draft} rows={2} onChange={(e) => setDraft(e.currentTarget.value)} />
        <div className="message-actions">
          <button
            type="button"
            onClick={() => {
              setDraft(undefined);
              setRemoved([]);
            }}
          >
            Cancel
          </button>
          <button type="submit" className="primary" disabled={!canEdit || (!draft.trim() && kept.length === 0)}>
            Save &amp; send
          </button>
        </div>
      </form>
    );
  return (
    <div className="row user" data-testid="user-message-row">
      <MessageFiles parts={parts} />
      {text && (
        <div className="bubble" data-testid="user-message">
          {text}
        </div>
      )}
      <div className="message-actions">
        {versions}
        <button type="button" disabled={!canEdit} onClick={() => setDraft(text)}>
          Edit
        </button>
      </div>
    </div>
  );
}

/**
 * `turn`: for the last assistant message of a turn, the ids of that turn's assistant
 * messages (one usage footer per turn); empty for the others. `version`: where the message
 * stands among its versions, when it has several. `canBranch`: editing and switching versions
 * are possible now (not while an answer streams).
 */
export function MessageRow({
  id,
  streaming,
  turn = [],
  version,
  canBranch = false,
}: { id: string; streaming: boolean; turn?: readonly string[]; version?: { index: number; count: number } | undefined; canBranch?: boolean }) {
  const message = useMessage(id);
  if (!message || message.role === 'tool' || message.role === 'system') return null;
  const summary = message.parts.find((p): p is SummaryPart => p.type === 'summary');
  if (summary) return <SummaryView part={summary} />;
  const versions = version && <Versions id={id} version={version} disabled={!canBranch} />;
  if (message.role === 'user') {
    const text = message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    return <UserMessage id={id} text={text} canEdit={canBranch} versions={versions} parts={message.parts} />;
  }
  // An answer that failed before its first word: the error says why (in the alert while it is the current error).
  if (message.parts.length === 0) return message.error ? <FailedTurn id={id} message={message.error.message} /> : versions ? <div className="row assistant">{versions}</div> : null;
  const last = message.parts.length - 1;
  return (
    <div className="row assistant" data-testid="assistant-message" data-message-id={message.id}>
      <div className="assistant-body">
        {message.parts.map((part, i) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: a message's parts only grow at the end, so the index is a part's identity
          <PartView key={i} part={part} streaming={streaming && i === last} messageId={message.id} />
        ))}
        {turn.length > 0 && <Footer message={message} turn={turn} streaming={streaming} />}
        {versions}
      </div>
    </div>
  );
}
