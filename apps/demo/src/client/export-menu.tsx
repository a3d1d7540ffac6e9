/**
 * "Export" in the header: the open thread as it is saved, as Markdown (to read) or JSON (to keep).
 */
import { loadRecord } from '@parlance/client';
import { useRef } from 'react';
import { downloadText, exportFileName, threadToJson, threadToMarkdown } from './export-thread.ts';
import { persist } from './threads.ts';

export function ExportMenu({ threadId, title, disabled }: { threadId: string; title: string; disabled: boolean }) {
  const menu = useRef<HTMLDetailsElement>(null);
  const save = async (kind: 'md' | 'json') => {
    menu.current?.removeAttribute('open');
    const { thread } = loadRecord(await persist.load(threadId));
    if (kind === 'md') downloadText(exportFileName(title, 'md'), 'text/markdown', threadToMarkdown(thread, title));
    else downloadText(exportFileName(title, 'json'), 'application/json', threadToJson(thread, title));
  };
  if (disabled) return null;
  return (
    <details className="header-menu export-menu" ref={menu}>
      <summary>Export</summary>
      <div className="menu">
        <button type="button" onClick={() => void save('md')}>
          Markdown (.md)
        </button>
        <button type="button" onClick={() => void save('json')}>
          JSON (.json)
        </button>
      </div>
    </details>
  );
}
