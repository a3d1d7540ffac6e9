// Resume and cancel arrive as new requests. workerd lets no request touch I/O another
// request started, so these work because the run lives in the Durable Object run store,
// which every request reaches (src/api.ts). Each test drives two live requests at once.
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { BASE, postChat } from './self.ts';
import { chatBody, drain, type Frame, frames, readFrames, textOf } from './sse.ts';

/** Reads frames until the first text delta, and hands back the rest of the stream. */
async function readUntilText(res: Response): Promise<{ seen: Frame[]; rest: AsyncGenerator<Frame> }> {
  const stream = frames(res);
  const seen: Frame[] = [];
  for (;;) {
    const { done, value } = await stream.next();
    if (done) throw new Error('The stream ended before any text');
    seen.push(value);
    if (value.data.type === 'text-delta') return { seen, rest: stream };
  }
}

describe('runs across requests (Durable Object run store)', () => {
  it('a second request resumes a live run from Last-Event-ID: no frame lost, none repeated', async () => {
    const res = await postChat(chatBody('resume while live'));
    const runId = res.headers.get('x-parlance-run-id')!;
    const { seen, rest } = await readUntilText(res);
    const lastId = seen.at(-1)!.id!;

    const resumed = await SELF.fetch(`${BASE}/api/runs/${runId}/events`, { headers: { 'Last-Event-ID': lastId } });
    expect(resumed.status).toBe(200);
    const [original, replay] = await Promise.all([drain(rest), readFrames(resumed).then((r) => r.frames)]);

    // The resumed stream is exactly what the original had after the last id the client saw.
    expect(replay.map((f) => f.id)).toEqual(original.map((f) => f.id));
    expect(replay.filter((f) => f.data.type === 'chat-finish')).toHaveLength(1);
    expect(textOf(seen) + textOf(replay)).toMatch(/^You said: "resume while live"\./);
    expect(replay.at(-1)!.data).toMatchObject({ type: 'chat-finish', haltReason: 'completed' });
  });

  it('a cancel sent as a second request stops the run mid-stream and keeps the partial answer', async () => {
    const res = await postChat(chatBody('cancel me'));
    const runId = res.headers.get('x-parlance-run-id')!;
    const { seen, rest } = await readUntilText(res);

    const cancel = await SELF.fetch(`${BASE}/api/runs/${runId}/cancel`, { method: 'POST' });
    expect(cancel.status).toBe(202);
    const after = await drain(rest);
    const all = [...seen, ...after];

    const finishes = all.filter((f) => f.data.type === 'chat-finish');
    expect(finishes).toHaveLength(1);
    const finish = finishes[0]!.data as { haltReason: string; thread?: { messages: { parts: { type: string; text?: string }[] }[] } };
    expect(finish.haltReason).toBe('cancelled');
    const text = textOf(all);
    expect(text.startsWith('You')).toBe(true);
    expect(text).not.toContain('to talk to a real model.');
    expect(finish.thread?.messages.at(-1)?.parts.find((p) => p.type === 'text')?.text).toBe(text);
  });

  it('a retried POST with the same clientRequestId joins the run it started instead of starting another', async () => {
    const body = chatBody('only once');
    const first = await postChat(body);
    const second = await postChat(body);
    const runId = first.headers.get('x-parlance-run-id');
    expect(second.headers.get('x-parlance-run-id')).toBe(runId);
    const [a, b] = await Promise.all([readFrames(first), readFrames(second)]);
    expect(b.frames.map((f) => f.id)).toEqual(a.frames.map((f) => f.id));
    expect(textOf(b.frames)).toBe(textOf(a.frames));
  });

  it('answers resume and cancel for a run that does not exist with 404', async () => {
    for (const runId of ['run_not-an-object-id', 'nope', `run_${'0'.repeat(64)}`]) {
      const events = await SELF.fetch(`${BASE}/api/runs/${runId}/events`);
      expect(events.status).toBe(404);
      expect(((await events.json()) as { error: { code: string } }).error.code).toBe('not_found');
      const cancel = await SELF.fetch(`${BASE}/api/runs/${runId}/cancel`, { method: 'POST' });
      expect(cancel.status).toBe(404);
    }
  });
});
