// The Worker as `wrangler dev` runs it (wrangler's unstable_startWorker, workerd), reached
// over real HTTP on 127.0.0.1: the chat streams frame by frame through the socket.
import { unstable_startWorker } from 'wrangler';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { chatBody, readFrames, textOf } from '../test/sse.ts';

let worker: Awaited<ReturnType<typeof unstable_startWorker>>;

beforeAll(async () => {
  worker = await unstable_startWorker({
    config: new URL('../wrangler.jsonc', import.meta.url).pathname,
    // No persistence, so this and the two-isolates test never share a .wrangler/state SQLite file.
    dev: { server: { hostname: '127.0.0.1', port: 0 }, inspector: false, persist: false },
  });
  await worker.ready;
}, 60_000);

afterAll(async () => {
  await worker?.dispose();
});

it('streams a chat from the mock model over HTTP from the Worker run by wrangler', async () => {
  const url = await worker.url;
  const models = (await (await fetch(new URL('/api/models', url))).json()) as { models: { id: string }[] };
  const model = models.models[0]!.id;
  const res = await fetch(new URL('/api/chat', url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: chatBody('over the wire', { model }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const { frames, chunks } = await readFrames(res);
  expect(textOf(frames)).toContain('over the wire');
  expect(frames.filter((f) => f.data.type === 'chat-finish')).toHaveLength(1);
  expect(frames.at(-1)!.data).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
  // Not buffered into one body on the way: the paced mock reply arrives in many reads.
  expect(chunks).toBeGreaterThan(5);
});
