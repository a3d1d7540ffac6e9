/**
 * The demo's layout: the thread list (react-query over the localStorage adapter),
 * the model picker (GET /api/models) and the open chat. The open thread lives in the
 * URL hash, so a reload shows the same conversation.
 */
import { fetchModels, type ModelEntry, type ThreadSummary } from '@parlance/client';
import { threadKeys, useThread, useThreads } from '@parlance/react/query';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Chat } from './chat.tsx';
import { ExportMenu } from './export-menu.tsx';
import { MenuIcon, PencilIcon, TrashIcon } from './icons.tsx';
import { loadSettings, saveSettings, toClientOptions } from './model-settings.ts';
import { SettingsPanel } from './settings-panel.tsx';
import { ThreadSearch } from './thread-search.tsx';
import { deleteThread, newThreadId, onTitlesChange, openThread, persist, renameThread, savedModel, saveModel, threadFromHash, threadTitles } from './threads.ts';

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

function ThreadItem({ thread, current, open, onChanged }: { thread: ThreadSummary; current: boolean; open: (id: string) => void; onChanged: () => void }) {
  const [editing, setEditing] = useState(false);
  const title = thread.title || 'Untitled';
  if (editing) {
    const done = (value: string | undefined) => {
      if (value !== undefined) renameThread(thread.id, value);
      setEditing(false);
      onChanged();
    };
    return (
      <li className="thread-row">
        <input
          className="thread-name"
          aria-label="Thread name"
          defaultValue={title}
          // biome-ignore lint/a11y/noAutofocus: the field appears because the user asked to rename
          autoFocus
          onKeyDown={(e) => {
            if (e.key === 'Enter') done(e.currentTarget.value);
            else if (e.key === 'Escape') done(undefined);
          }}
          onBlur={(e) => done(e.currentTarget.value)}
        />
      </li>
    );
  }
  return (
    <li className="thread-row">
      <button type="button" className={current ? 'thread active' : 'thread'} aria-current={current ? 'page' : undefined} onClick={() => open(thread.id)}>
        {title}
      </button>
      <button type="button" className="thread-action" aria-label={`Rename ${title}`} title="Rename" onClick={() => setEditing(true)}>
        <PencilIcon />
      </button>
      <button
        type="button"
        className="thread-action"
        aria-label={`Delete ${title}`}
        title="Delete"
        onClick={async () => {
          if (!window.confirm(`Delete "${title}"? This cannot be undone.`)) return;
          // Leave a deleted open thread first, so its chat does not save it again.
          if (current) open(newThreadId());
          await deleteThread(thread.id);
          onChanged();
        }}
      >
        <TrashIcon />
      </button>
    </li>
  );
}

interface SidebarProps {
  current: string;
  open: (id: string) => void;
  drawer: boolean;
  close: () => void;
  titles: Record<string, string>;
  onTitles: () => void;
}

function Sidebar({ current, open, drawer, close, titles, onTitles }: SidebarProps) {
  const threads = useThreads(persist);
  const queryClient = useQueryClient();
  const list = [...(threads.data ?? [])]
    .map((t) => ({ ...t, title: titles[t.id] ?? t.title }))
    .sort((a, b) => (b.updatedAt ?? '').localeCompare(a.updatedAt ?? ''));
  const showNew = !list.some((t) => t.id === current);
  const choose = (id: string) => {
    open(id);
    close();
  };
  const changed = () => {
    onTitles();
    void queryClient.invalidateQueries({ queryKey: threadKeys.all });
  };
  return (
    <>
      {drawer && <button type="button" className="backdrop" aria-label="Close threads" onClick={close} />}
      <aside className={drawer ? 'sidebar open' : 'sidebar'}>
        <div className="brand">Parlance</div>
        <button type="button" className="new-chat" onClick={() => choose(newThreadId())}>
          + New chat
        </button>
        <ThreadSearch threads={list} open={choose}>
          <nav aria-label="Threads">
            <ul>
              {showNew && (
                <li className="thread-row">
                  <button type="button" className="thread active" aria-current="page">
                    New chat
                  </button>
                </li>
              )}
              {list.map((t) => (
                <ThreadItem key={t.id} thread={t} current={t.id === current} open={choose} onChanged={changed} />
              ))}
            </ul>
          </nav>
        </ThreadSearch>
        <p className="sidebar-note">Threads are saved in this browser.</p>
      </aside>
    </>
  );
}

function ModelPicker({ models, value, onChange }: { models: ModelEntry[]; value: string | undefined; onChange: (id: string) => void }) {
  const selected = models.find((m) => m.id === value);
  const mock = selected?.capabilities?.mock === true;
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
  const models = useQuery({ queryKey: ['parlance-demo', 'models'], queryFn: () => fetchModels({ api: '/api' }) });
  const [chosen, setChosen] = useState(savedModel);
  const [drawer, setDrawer] = useState(false);
  const [titles, setTitles] = useState(threadTitles);
  const [settings, setSettings] = useState(loadSettings);
  // A rename in another tab (the thread list itself refetches on its own: useThreads hears saves and deletions).
  useEffect(() => onTitlesChange(() => setTitles(threadTitles())), []);
  const list = models.data ?? [];
  const model = list.some((m) => m.id === chosen) ? chosen : list[0]?.id;
  const first = thread.data?.messages.find((m) => m.role === 'user')?.parts.find((p) => p.type === 'text');
  const title = titles[threadId] ?? (first && first.type === 'text' ? first.text : 'New chat');

  return (
    <div className="layout">
      <Sidebar current={threadId} open={open} drawer={drawer} close={() => setDrawer(false)} titles={titles} onTitles={() => setTitles(threadTitles())} />
      <main className="main">
        <header className="header">
          <button type="button" className="menu-button" aria-label="Threads" aria-expanded={drawer} onClick={() => setDrawer(true)}>
            <MenuIcon />
          </button>
          <h1 title={title}>{title}</h1>
          <ExportMenu threadId={threadId} title={title} disabled={!thread.data?.messages.length} />
          <SettingsPanel
            settings={settings}
            reasoning={list.find((m) => m.id === model)?.capabilities?.reasoning === true}
            onChange={(next) => {
              setSettings(next);
              saveSettings(next);
            }}
          />
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
        <Chat key={threadId} threadId={threadId} model={model} options={toClientOptions(settings).options} onNewChat={() => open(newThreadId())} />
      </main>
    </div>
  );
}
