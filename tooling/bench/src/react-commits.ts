/**
 * React commits and wall time for one streamed reply, each hook in its own root: Parlance's
 * `useChat` (@parlance/react) and the AI SDK's `useChat` (@ai-sdk/react), rendering every message's
 * text, in happy-dom. Commits are counted with React's Profiler.
 */
import { useChat as useAiChat } from '@ai-sdk/react';
import type { Message } from '@parlance/protocol';
import { useChat } from '@parlance/react';
import type { UIMessage } from 'ai';
import { DefaultChatTransport } from 'ai';
import { Window } from 'happy-dom';
import { createElement, Profiler, type ReactNode } from 'react';

const window = new Window();
Object.assign(globalThis, { window, document: window.document, navigator: window.navigator, HTMLElement: window.HTMLElement, requestAnimationFrame: window.requestAnimationFrame.bind(window), cancelAnimationFrame: window.cancelAnimationFrame.bind(window) });

const textOf = (parts: readonly { type: string; text?: string }[]) => parts.map((p) => (p.type === 'text' ? p.text : '')).join('');

interface ChatProps {
  fetch: typeof globalThis.fetch;
  prior: { parlance: Message[]; aisdk: UIMessage[] };
  onSend: (send: () => Promise<void>) => void;
}

function ParlanceChat({ fetch, prior, onSend }: ChatProps): ReactNode {
  const chat = useChat({ api: 'http://127.0.0.1/bench', fetch, initialThread: { version: 1, id: 'th', messages: prior.parlance } });
  onSend(() => chat.send('Hello'));
  return createElement('ul', null, ...chat.messages.map((m) => createElement('li', { key: m.id }, textOf(m.parts))));
}

function AiSdkChat({ fetch, prior, onSend }: ChatProps): ReactNode {
  const chat = useAiChat({ messages: prior.aisdk, transport: new DefaultChatTransport({ api: 'http://127.0.0.1/bench', fetch }) });
  onSend(() => chat.sendMessage({ text: 'Hello' }));
  return createElement('ul', null, ...chat.messages.map((m) => createElement('li', { key: m.id }, textOf(m.parts as { type: string; text?: string }[]))));
}

export interface Rendered {
  commits: number;
  wallMs: number;
}

/** Renders a chat with `prior` messages, sends one message whose reply `fetch` replays, and counts commits until it is done. */
export async function renderReply(system: 'parlance' | 'aisdk', fetch: typeof globalThis.fetch, prior: { parlance: Message[]; aisdk: UIMessage[] }, replyText: string): Promise<Rendered> {
  const { createRoot } = await import('react-dom/client');
  const container = window.document.createElement('div');
  window.document.body.appendChild(container as never);
  let commits = 0;
  let send: (() => Promise<void>) | undefined;
  const props: ChatProps = { fetch, prior, onSend: (f) => (send = f) };
  const root = createRoot(container as never);
  root.render(createElement(Profiler, { id: system, onRender: () => commits++ }, createElement(system === 'parlance' ? ParlanceChat : AiSdkChat, props)));
  for (let i = 0; i < 100 && !send; i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!send) throw new Error(`The ${system} chat did not render`);
  commits = 0;
  const start = performance.now();
  await send();
  // The last update's commit.
  await new Promise((resolve) => setTimeout(resolve, 40));
  const wallMs = performance.now() - start - 40;
  const rendered = { commits, wallMs };
  // The whole reply is on screen (its last 200 characters, the last deltas of the 5,000).
  if (!container.textContent?.includes(replyText.slice(-200))) throw new Error(`The ${system} chat did not show the whole reply (${commits} commits)`);
  root.unmount();
  container.remove();
  return rendered;
}
