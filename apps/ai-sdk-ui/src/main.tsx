// An ordinary useChat page: no transport option (useChat's own DefaultChatTransport posts to
// /api/chat), resume on, approvals and client tool outputs sent back automatically. The messages are kept in
// sessionStorage so a reload shows the conversation and resumes the reply in flight.
import { useChat } from '@ai-sdk/react';
import { lastAssistantMessageIsCompleteWithApprovalResponses, lastAssistantMessageIsCompleteWithToolCalls, type UIMessage } from 'ai';
import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';

const KEY = 'ai-sdk-ui-chat';

interface Saved {
  id: string;
  messages: UIMessage[];
}

function load(): Saved {
  const saved = sessionStorage.getItem(KEY);
  return saved ? (JSON.parse(saved) as Saved) : { id: `chat-${crypto.randomUUID()}`, messages: [] };
}

/** UI message parts have no id of their own; they only ever append, so their place is a stable key. */
function keyed(message: UIMessage) {
  return message.parts.map((part, at) => ({ part, key: `${message.id}:${at}` }));
}

function ToolPart({ part, onAnswer }: { part: Record<string, any>; onAnswer: (id: string, approved: boolean) => void }) {
  return (
    <div data-part="tool" data-tool={part.type.slice('tool-'.length)} data-state={part.state}>
      <code>{part.type.slice('tool-'.length)}</code> <span data-field="input">{JSON.stringify(part.input)}</span>
      {part.state === 'output-available' ? <pre data-field="output">{JSON.stringify(part.output)}</pre> : null}
      {part.state === 'approval-requested' ? (
        <span>
          <button type="button" onClick={() => onAnswer(part.approval.id, true)}>
            Approve
          </button>
          <button type="button" onClick={() => onAnswer(part.approval.id, false)}>
            Deny
          </button>
        </span>
      ) : null}
    </div>
  );
}

function Chat() {
  const [saved] = useState(load);
  const { messages, sendMessage, status, stop, regenerate, addToolApprovalResponse, addToolOutput, error } = useChat({
    id: saved.id,
    messages: saved.messages,
    resume: true,
    // The server's client tool (get_location, no execute on the server) is answered here.
    onToolCall: ({ toolCall }) => {
      if (toolCall.toolName === 'get_location') void addToolOutput({ tool: 'get_location', toolCallId: toolCall.toolCallId, output: { city: 'Lisbon' } } as never);
    },
    sendAutomaticallyWhen: (options) => lastAssistantMessageIsCompleteWithApprovalResponses(options) || lastAssistantMessageIsCompleteWithToolCalls(options),
  });
  const [input, setInput] = useState('');
  useEffect(() => {
    // A reply in flight is not saved: after a reload, resume streams it again from its start.
    const busy = status === 'submitted' || status === 'streaming';
    const kept = busy && messages.at(-1)?.role === 'assistant' ? messages.slice(0, -1) : messages;
    sessionStorage.setItem(KEY, JSON.stringify({ id: saved.id, messages: kept }));
  }, [messages, status, saved.id]);
  return (
    <main data-status={status}>
      <ol>
        {messages.map((m) => (
          <li key={m.id} data-role={m.role}>
            {keyed(m).map(({ part, key }) => {
              if (part.type === 'text') return <p key={key} data-part="text">{part.text}</p>;
              if (part.type === 'reasoning') return <p key={key} data-part="reasoning">{part.text}</p>;
              if (part.type.startsWith('tool-')) return <ToolPart key={key} part={part as Record<string, any>} onAnswer={(id, approved) => void addToolApprovalResponse({ id, approved })} />;
              return null;
            })}
          </li>
        ))}
      </ol>
      {error ? <p role="alert">{error.message}</p> : null}
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void sendMessage({ text: input });
          setInput('');
        }}
      >
        <input aria-label="Message" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit">Send</button>
        <button type="button" onClick={() => void stop()}>
          Stop
        </button>
        <button type="button" onClick={() => void regenerate()}>
          Regenerate
        </button>
      </form>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Chat />
  </StrictMode>,
);
