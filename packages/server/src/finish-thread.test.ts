// The thread a run leaves is not sent back: the browser folds the run's events onto the thread it
// sent (`threadAfterRun`, what ChatStore does as it streams) and must end with exactly the thread
// the runner reports to `onFinish`, signed, so its next message verifies. (Frames are read cut at
// random byte boundaries by `frames`.)
import { openaiCompatible, resolveModel, tool } from '@parlance/engine';
import { createThread, threadAfterRun, type Event, type Message, type Thread } from '@parlance/protocol';
import { mockProviderServer, type MockScript, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { chatRequest, readAll } from '../test/helpers.ts';
import { engineRunner } from './engine-runner.ts';
import { createParlanceApp, type ChatRunner, type FinishedRun } from './handler.ts';

function setup(script: MockScript, wrap: (run: ChatRunner) => ChatRunner = (run) => run) {
  const upstream = mockProviderServer({ dialect: 'openai_completions', script });
  const mock = openaiCompatible({ id: 'mock', baseURL: 'http://mock.local/v1', apiKeyEnv: 'MOCK_API_KEY', fetch: async (input, init) => upstream(new Request(input, init)) });
  const ran: unknown[] = [];
  const tools = [
    tool({ name: 'weather', input: z.object({ city: z.string() }), execute: ({ city }) => `Sunny in ${city}` }),
    tool({ name: 'pay', input: z.object({ amount: z.number() }), needsApproval: true, execute: (input) => (ran.push(input), 'paid') }),
  ];
  const finished: FinishedRun[] = [];
  // The thread the engine itself ends with (unsigned: the server signs the events as they pass).
  const engineThreads: Thread[] = [];
  const engine = engineRunner({ engine: { tools, resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) } });
  const capture: ChatRunner = async function* (input) {
    for await (const event of engine(input)) {
      if (event.type === 'chat-finish' && event.thread) engineThreads.push(event.thread);
      yield event;
    }
  };
  capture.profile = engine.profile!;
  const app = createParlanceApp({
    models: [{ id: 'mock:model', provider: 'mock' }],
    env: { MOCK_API_KEY: 'sk-mock-secret', PARLANCE_SECRET: 'finish-thread-test-secret-0123456789abcdef' },
    run: wrap(capture),
    onFinish: (run) => void finished.push(run),
  });
  let requests = 0;
  /** One browser turn: POST the thread held, fold the events onto it. */
  const post = async (thread: Thread, extra: object = {}) => {
    const res = await app.request('/chat', chatRequest({ thread, clientRequestId: `r${++requests}`, ...extra }));
    expect(res.status).toBe(200);
    const frames = await readAll(res);
    const events = frames.map((f) => f.data!).filter(Boolean) as Event[];
    const finish = events.at(-1)!;
    expect(finish.type).toBe('chat-finish');
    expect(finish).not.toHaveProperty('thread');
    const held = threadAfterRun(thread, events);
    await until(() => finished.length === requests);
    expect(held).toEqual(finished.at(-1)!.thread);
    return { held, events, finishBytes: JSON.stringify(finish).length, engine: engineThreads.at(-1)! };
  };
  return { post, ran, finished };
}

/** A thread without the server's signatures, to compare with the engine's own. */
const unsigned = (thread: Thread): unknown => JSON.parse(JSON.stringify(thread, (key, value) => (key === 'signature' ? undefined : value)));

async function until(done: () => boolean) {
  for (let i = 0; i < 200 && !done(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(done()).toBe(true);
}

const user = (id: string, text: string): Message => ({ id, role: 'user', parts: [{ type: 'text', text }] });
const ask = (thread: Thread, id: string, text: string): Thread => ({ ...thread, messages: [...thread.messages, user(id, text)] });

describe('the thread a run leaves', () => {
  it('is what the events fold to from the thread sent, through text, tools, an approval, a failure and its retry', async () => {
    const { post, ran } = setup((_request, call) =>
      [
        { text: 'Hello there', usage: { inputTokens: 3, outputTokens: 2 } },
        { toolCalls: [{ id: 'call_w', name: 'weather', input: { city: 'Paris' } }] },
        { text: 'Sunny, it says.' },
        { toolCalls: [{ id: 'call_pay', name: 'pay', input: { amount: 5 } }] },
        { text: 'Paid.' },
        { error: { code: 'invalid_request', message: 'upstream refused', status: 400 } },
        { text: 'Back again.' },
      ][call] as ScriptedTurn,
    );
    // Each turn: the browser's thread is the engine's, plus the server's signatures.
    const turn = async (sent: Thread, extra?: object) => {
      const { held, engine } = await post(sent, extra);
      expect(unsigned(held)).toEqual(unsigned(engine));
      return held;
    };
    let thread = createThread('th_finish', [user('u1', 'Hi')], { title: 'Trip' });
    thread = await turn(thread);
    thread = await turn(ask(thread, 'u2', 'Weather in Paris?'));
    expect(thread.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'tool', 'assistant']);
    expect(thread.messages[3]!.parts[0]).toMatchObject({ type: 'tool-call', signature: expect.any(String) });
    thread = await turn(ask(thread, 'u3', 'Pay 5'));
    expect(thread.messages.at(-1)!.pause).toMatchObject({ waitingFor: [expect.objectContaining({ kind: 'approval', toolCallId: 'call_pay' })], signature: expect.any(String) });
    thread = await turn(thread, { resume: { approvals: [{ toolCallId: 'call_pay', approved: true }] } });
    expect(ran).toEqual([{ amount: 5 }]);
    const failed = await turn(ask(thread, 'u4', 'And now?'));
    expect(failed.messages.at(-1)).toMatchObject({ role: 'assistant', parts: [], error: { code: 'invalid_request' } });
    // The retry sends the failed turn back: both sides leave it out (`runMessages`), and the thread stays signed.
    const retried = await turn(failed);
    expect(retried.messages.filter((m) => m.error)).toEqual([]);
    expect(retried.metadata).toEqual({ title: 'Trip' });
  });

  it('carries message metadata a runner adds as `message-metadata` events', async () => {
    const withCost: (run: ChatRunner) => ChatRunner = (run) =>
      async function* (input) {
        let id: string | undefined;
        for await (const event of run(input)) {
          if (event.type === 'message-start') id = event.messageId;
          yield event;
          if (event.type === 'finish' && id) yield { type: 'message-metadata', messageId: id, metadata: { cost: 0.25 } };
        }
      };
    const { post } = setup([{ text: 'Priced answer' }], withCost);
    const { held } = await post(createThread('th_meta', [user('u1', 'Hi')]));
    expect(held.messages.at(-1)!.metadata).toEqual({ cost: 0.25 });
  });

  it('costs the same bytes at the end of a reply whatever the length of the thread', async () => {
    const { post } = setup([{ text: 'Short answer.' }]);
    const history = Array.from({ length: 200 }, (_, i) => user(`h${i}`, `message ${i} `.repeat(20)));
    const short = await post(createThread('th_a', [user('u1', 'Hi')]));
    const long = await post(createThread('th_b', [...history, user('u1', 'Hi')]));
    expect(long.finishBytes).toBe(short.finishBytes);
  });

  it('is sent on chat-finish to a caller that sent bare messages (it holds no thread to fold onto)', async () => {
    const upstream = mockProviderServer({ dialect: 'openai_completions', script: [{ text: 'Hello' }] });
    const mock = openaiCompatible({ id: 'mock', baseURL: 'http://mock.local/v1', apiKeyEnv: 'MOCK_API_KEY', fetch: async (input, init) => upstream(new Request(input, init)) });
    const app = createParlanceApp({
      models: [{ id: 'mock:model', provider: 'mock' }],
      env: { MOCK_API_KEY: 'sk-mock-secret' },
      run: engineRunner({ engine: { resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) } }),
    });
    const res = await app.request('/chat', chatRequest({ messages: [user('u1', 'Hi')], clientRequestId: 'bare' }));
    const finish = (await readAll(res)).map((f) => f.data!).filter(Boolean).at(-1)!;
    expect(finish.type === 'chat-finish' && finish.thread?.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
  });
});
