/**
 * Request bytes per turn of a 50-turn thread whose first message attaches 10 images (500 KB each),
 * with files inline (a server with no file store: the client sends base64 `data`, as the AI SDK's
 * `useChat` does with data URLs) versus referenced (`files: { store }`: each image is uploaded once
 * to `POST /files` and the thread holds its signed reference). Real `ChatStore` against a real
 * `createParlanceApp`, every `POST /chat` body counted in bytes; the uploads are counted apart.
 * Byte counts are exact (no timing). Run: `pnpm --filter @parlance/bench bench:files`.
 */
import { writeFileSync } from 'node:fs';
import { ChatStore } from '@parlance/client';
import type { Event } from '@parlance/protocol';
import { createMemoryBlobStore, createParlanceApp, type ChatRunner } from '@parlance/server';

const TURNS = 50;
const IMAGES = 10;
const IMAGE_BYTES = 500 * 1024;
const SECRET = 'bench-signing-secret-0123456789abcdef0123456789abcdef';

/** A model that answers every turn with ~300 characters of text. */
const runner: ChatRunner = async function* (): AsyncGenerator<Event> {
  const text = 'The picture shows a harbour at dusk, boats moored along a wooden pier, lights coming on in the houses behind. '.repeat(3);
  yield { type: 'step-start', step: 0 };
  yield { type: 'message-start' };
  yield { type: 'text-start', id: 't' };
  yield { type: 'text-delta', id: 't', delta: text };
  yield { type: 'text-end', id: 't' };
  yield { type: 'finish', finishReason: 'stop', usage: {} };
  yield { type: 'step-finish', step: 0, finishReason: 'stop', usage: {} };
  yield { type: 'chat-finish', haltReason: 'completed', usage: {} };
};

/** Pseudo-random bytes (a photo does not compress): deterministic. */
function photo(seed: number): File {
  const bytes = new Uint8Array(IMAGE_BYTES);
  let x = seed * 2654435761 || 1;
  for (let i = 0; i < bytes.length; i++) bytes[i] = (x = (x * 1103515245 + 12345) >>> 0) >>> 24;
  return new File([bytes], `photo-${seed}.jpg`, { type: 'image/jpeg' });
}

async function run(referenced: boolean) {
  const app = createParlanceApp({
    models: [{ id: 'mock:vision', provider: 'mock', capabilities: { input: ['text', 'image'] } }],
    run: runner,
    secret: SECRET,
    env: {},
    maxBodyBytes: 1024 * 1024 * 1024,
    ...(referenced ? { files: { store: createMemoryBlobStore({ maxBytes: 64 * 1024 * 1024 }) } } : {}),
  });
  const chat: number[] = [];
  let uploaded = 0;
  const fetch = async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const path = new URL(String(input), 'http://bench.local').pathname;
    if (path === '/api/chat') chat.push(new TextEncoder().encode(String(init.body)).length);
    if (path === '/api/files') uploaded += (init.body as Blob).size;
    return app.fetch(new Request(new URL(String(input), 'http://bench.local').href.replace('/api', ''), init));
  };
  const store = new ChatStore({ api: '/api', fetch, threadId: 'bench', model: 'mock:vision', maxInlineFileBytes: IMAGE_BYTES });
  store.schedule = (flush) => queueMicrotask(flush);
  await store.send({ text: 'What is in these photos?', files: Array.from({ length: IMAGES }, (_, i) => photo(i + 1)) });
  for (let turn = 2; turn <= TURNS; turn++) await store.send(`Tell me more about photo ${(turn % IMAGES) + 1}.`);
  if (store.getSnapshot().status !== 'ready') throw new Error(`The chat ended ${store.getSnapshot().status}: ${store.getSnapshot().error?.message}`);
  return { chat, uploaded };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
const inline = await run(false);
const referenced = await run(true);
const total = (list: number[]) => list.reduce((a, b) => a + b, 0);
const rows = [
  ['turn 1 (attaches the images)', inline.chat[0]!, referenced.chat[0]!],
  ['turn 2', inline.chat[1]!, referenced.chat[1]!],
  ['turn 50', inline.chat[TURNS - 1]!, referenced.chat[TURNS - 1]!],
  [`mean per turn over ${TURNS} turns`, total(inline.chat) / TURNS, total(referenced.chat) / TURNS],
  [`all ${TURNS} POST /chat bodies`, total(inline.chat), total(referenced.chat)],
  ['uploads, POST /files (inline: the one upload that found no file store)', inline.uploaded, referenced.uploaded],
] as const;
const table = [
  `Request bytes per turn, ${TURNS}-turn thread, ${IMAGES} images of ${IMAGE_BYTES / 1024} KB attached in turn 1 (ChatStore -> createParlanceApp, exact bytes)`,
  '',
  '| measure | inline (no file store) | referenced (`files`) | referenced / inline |',
  '| --- | --- | --- | --- |',
  ...rows.map(([name, a, b]) => `| ${name} | ${kb(a)} | ${kb(b)} | ${a ? (b / a).toFixed(4) : '-'} |`),
].join('\n');
console.log(table);
writeFileSync(new URL('../results/file-bytes.md', import.meta.url), `${table}\n`);
