// Two Workers (two workerd processes, so two isolates) share PARLANCE_SECRET: a run paused in one
// resumes in the other, because the pause and the call were signed with the shared key. A third
// with another key refuses the same thread, and neither accepts an edited call.
import { threadAfterRun, type Event, type Thread } from '@parlance/protocol';
import { unstable_startWorker } from 'wrangler';
import { afterAll, beforeAll, expect, it } from 'vitest';

type Worker = Awaited<ReturnType<typeof unstable_startWorker>>;
const SHARED = 'two-isolates-shared-secret-0123456789abcdef';
const workers: Worker[] = [];

function start(secret: string): Promise<Worker> {
  return unstable_startWorker({
    config: new URL('./wrangler.jsonc', import.meta.url).pathname,
    bindings: { PARLANCE_SECRET: { type: 'secret_text', value: secret } },
    // No persistence: three workerd processes (and wrangler-dev.test.ts beside them) must not share
    // one .wrangler/state SQLite file, or a Durable Object start fails with SQLITE_BUSY.
    dev: { server: { hostname: '127.0.0.1', port: 0 }, inspector: false, persist: false },
  });
}

let a: Worker;
let b: Worker;
let other: Worker;

beforeAll(async () => {
  [a, b, other] = await Promise.all([start(SHARED), start(SHARED), start('another-secret-entirely-0123456789abcdef')]);
  workers.push(a, b, other);
  await Promise.all(workers.map((w) => w.ready));
}, 90_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => w.dispose()));
}, 60_000);

interface Frame {
  type: string;
  [key: string]: unknown;
}

async function post(worker: Worker, body: unknown): Promise<{ status: number; events: Frame[]; error?: { code: string } }> {
  const res = await fetch(new URL('/chat', await worker.url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, events: [], error: (JSON.parse(text) as { error: { code: string } }).error };
  const events = text
    .split('\n')
    .filter((l) => l.startsWith('data: '))
    .map((l) => JSON.parse(l.slice(6)) as Frame);
  return { status: res.status, events };
}

const thread: Thread = { version: 2, id: 'thread-1', messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'pay alice 5' }] }] };
const approve = { approvals: [{ toolCallId: 'call_pay', approved: true }] };

it('a run paused in one isolate resumes in another that shares the key, and nowhere else', async () => {
  const paused = await post(a, { thread, clientRequestId: 'one' });
  expect(paused.events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'approval' });
  // What the browser holds: the thread it sent with the signed events folded onto it.
  const signed = threadAfterRun(thread, paused.events as unknown as Event[]);

  const refused = await post(other, { thread: signed, clientRequestId: 'two', resume: approve });
  expect(refused.status).toBe(403);
  expect(refused.error?.code).toBe('permission');

  const edited = JSON.parse(JSON.stringify(signed).replace('"amount":5', '"amount":5000'));
  const forged = await post(b, { thread: edited, clientRequestId: 'three', resume: approve });
  expect(forged.status).toBe(403);

  const resumed = await post(b, { thread: signed, clientRequestId: 'four', resume: approve });
  expect(resumed.status).toBe(200);
  expect(resumed.events.find((e) => e.type === 'tool-result')).toMatchObject({ toolCallId: 'call_pay', output: 'sent 5 to alice', signature: expect.stringMatching(/^p3\./) });
  expect(resumed.events.at(-1)).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
}, 120_000);
