/**
 * The demo's layout: the thread list (react-query over the localStorage adapter),
 * the model picker (GET /api/models) and the open chat. The open thread lives in the
 * URL hash, so a reload shows the same conversation.
 */
import { listModels, type ModelInfo, type ThreadSummary } from '@parlance/client';
import { useThread, useThreads } from '@parlance/react/query';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Chat } from './chat.tsx';
import { newThreadId, openThread, persist, savedModel, saveModel, threadFromHash } from './threads.ts';

function useOpenThread(): [string, (id: string) => void] {
  const [id, setId] = useState(() => {
    const found = threadFromHash() ?? newThreadId();
    openThread(found, true);
    return found;
  });
  useEffect(() => {
    const onChange = () => setId(threadFromHash() ?? newThreadId());
    window.addEventListener('popstate', onChange);
    window.addEventListener('hashchange', onChange);
    return () => {
      window.removeEventListener('popstate', onChange);
      window.removeEventListener('hashchange', onChange);
    };
  }, []);
  const open = (next: string) => {
    openThread(next);
    setId(next);
  };
  return [id, open];
}

function Sidebar({ current, open }: { current: string; open: (id: string) => void }) {
  const threads = useThreads(persist);
  const list = [...(threads.data ?? [])].sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  const showNew = !list.some((t) => t.id === current);
  const item = (t: ThreadSummary) => (
    <li key={t.id}>
      <button type="button" className={t.id === current ? 'thread active' : 'thread'} aria-current={t.id === current ? 'page' : undefined} onClick={() => open(t.id)}>
        {t.title || 'Untitled'}
      </button>
    </li>
  );
  return (
    <aside className="sidebar">
      <div className="brand">Parlance</div>
      <button type="button" className="new-chat" onClick={() => open(newThreadId())}>
        + New chat
      </button>
      <nav aria-label="Threads">
        <ul>
          {showNew && (
            <li>
              <button type="button" className="thread active" aria-current="page">
                New chat
              </button>
            </li>
          )}
          {list.map(item)}
        </ul>
      </nav>
      <p className="sidebar-note">Threads are saved in this browser.</p>
    </aside>
  );
}

function ModelPicker({ models, value, onChange }: { models: ModelInfo[]; value: string | undefined; onChange: (id: string) => void }) {
  const selected = models.find((m) => m.id === value);
  const mock = (selected?.capabilities as { mock?: boolean } | undefined)?.mock;
  return (
    <label className="model-picker">
      <span>Model</span>
      <select value={value ?? ''} onChange={(e) => onChange(e.target.value)} disabled={!models.length}>
        {models.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name ?? m.id}
          </option>
        ))}
      </select>
      {mock && <span className="badge" title="Scripted answers from a built-in mock provider: no API key, no network">mock</span>}
    </label>
  );
}

export function App() {
  const [threadId, open] = useOpenThread();
  const thread = useThread(threadId, persist);
  const models = useQuery({ queryKey: ['parlance-demo', 'models'], queryFn: () => listModels({ api: '/api' }) });
  const [chosen, setChosen] = useState(savedModel);
  const list = models.data ?? [];
  const model = list.some((m) => m.id === chosen) ? chosen : list[0]?.id;
  const first = thread.data?.messages.find((m) => m.role === 'user')?.parts.find((p) => p.type === 'text');
  const title = first && first.type === 'text' ? first.text : 'New chat';

  return (
    <div className="layout">
      <Sidebar current={threadId} open={open} />
      <main className="main">
        <header className="header">
          <h1 title={title}>{title}</h1>
          <ModelPicker
            models={list}
            value={model}
            onChange={(id) => {
              setChosen(id);
              saveModel(id);
            }}
          />
        </header>
        {models.isError && (
          <div className="error" role="alert">
            Could not load the models: {(models.error as Error).message}
          </div>
        )}
        <Chat key={threadId} threadId={threadId} model={model} />
      </main>
    </div>
  );
}
