// The integration proof that client and server agree on the protocol: @parlance/client's
// ChatStore against the real demo API (createParlanceApp + engineRunner + the mock provider
// in the Anthropic wire format), with the app's own fetch as the network.
import { type ChatRecord, ChatStore, definePersistAdapter, fetchModels, type PersistAdapter } from '@parlance/client';
import { type Message, messageText } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { createDemoApi, type DemoApiOptions } from './api.ts';
import { ERROR_MESSAGE, LONG_SENTENCES, longAnswer, longSentence, SMALL_MODEL, SMALL_WINDOW } from './mock-script.ts';
import { demoWeather } from './tools.ts';

function setup(options: DemoApiOptions = {}) {
  const api = createDemoApi({ env: {}, delayScale: 0, ollama: false, ...options });
  const fetch: typeof globalThis.fetch = async (input, init) => api.app.request(input instanceof Request ? input : String(input), init);
  const transport = { api: 'http://demo.local/api', fetch };
  let n = 0;
  const chat = (extra: Partial<ConstructorParameters<typeof ChatStore>[0]> = {}) =>
    new ChatStore({ ...transport, threadId: 't1', model: 'demo:mock', retryDelayMs: 0, generateId: () => `id${++n}`, ...extra });
  return { ...api, transport, chat };
}

const assistants = (store: ChatStore): Message[] => store.getSnapshot().thread.messages.filter((m) => m.role === 'assistant');
const lastText = (store: ChatStore) => messageText(assistants(store).at(-1) ?? { parts: [] });

function until(store: ChatStore, check: () => boolean): Promise<void> {
  return new Promise((resolve) => {
    const test = () => {
      if (!check()) return;
      stop();
      resolve();
    };
    const stop = store.subscribe(test);
    test();
  });
}

/** Answers a paused run and waits for the continued run to finish. (`approve()`'s own promise can
 * resolve before the continuation starts when called right after `send()` resolved.) */
async function answerAndFinish(store: ChatStore, answer: (id: string) => Promise<void>): Promise<void> {
  void answer(store.getSnapshot().pending[0]!.toolCallId);
  await until(store, () => store.getSnapshot().status === 'ready' && store.getSnapshot().haltReason === 'completed');
}

function memoryPersist(): PersistAdapter & { records: Map<string, ChatRecord> } {
  const records = new Map<string, ChatRecord>();
  return Object.assign(definePersistAdapter({ load: (id) => records.get(id), save: (id, record) => void records.set(id, structuredClone(record)) }), { records });
}

describe('the demo API with @parlance/client', () => {
  it('offers the mock model, and real providers only when their key is set, without exposing keys', async () => {
    const bare = await fetchModels(setup().transport);
    expect(bare).toEqual([
      expect.objectContaining({ id: 'demo:mock', name: 'Demo model (mock, no API key)', capabilities: expect.objectContaining({ mock: true }) }),
      expect.objectContaining({ id: 'demo:mock-small', name: 'Demo model, 1.5k context (mock: long threads get summarized)' }),
    ]);
    const keyed = setup({ env: { OPENAI_API_KEY: 'sk-test-secret-123', ANTHROPIC_API_KEY: 'sk-ant-secret-456' } });
    const response = await keyed.app.request('/api/models');
    const raw = await response.text();
    expect(raw).not.toContain('secret');
    const ids = (JSON.parse(raw) as { models: { id: string }[] }).models.map((m) => m.id);
    expect(ids[0]).toBe('demo:mock');
    expect(ids).toContain('openai:gpt-5-mini');
    expect(ids).toContain('anthropic:claude-sonnet-4-5');
    expect(ids.some((id) => id.startsWith('google:'))).toBe(false);
  });

  it('sends, streams reasoning and Markdown text, and ends with usage and cost on the message', async () => {
    const { chat, mock } = setup({ delayScale: 0.1 });
    const store = chat();
    const seen = new Set<string>();
    store.subscribe(() => seen.add(lastText(store)));
    await store.send('hello there');
    const s = store.getSnapshot();
    expect(s).toMatchObject({ status: 'ready', haltReason: 'completed' });
    expect(s.thread.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const answer = assistants(store)[0]!;
    expect(answer.id).toMatch(/^msg_/);
    expect(answer.parts[0]).toMatchObject({ type: 'reasoning', text: expect.stringContaining('hello there') });
    expect(messageText(answer)).toContain('You said: **hello there**');
    // Streamed: the store published partial texts before the whole answer.
    expect([...seen].filter((t) => t && t !== messageText(answer)).length).toBeGreaterThan(2);
    const usage = answer.metadata?.usage as { inputTokens: number; outputTokens: number; cost: number };
    expect(usage.inputTokens).toBeGreaterThan(0);
    expect(usage.outputTokens).toBeGreaterThan(0);
    expect(usage.cost).toBeCloseTo((usage.inputTokens * 1 + usage.outputTokens * 4) / 1e6, 9);
    expect(answer.provenance).toMatchObject({ provider: 'demo', model: 'mock', dialect: 'anthropic_messages' });
    // The engine sent the tools to the provider in the Anthropic wire format.
    const sent = mock.requests[0]!.body as { tools: { name: string }[] };
    expect(sent.tools.map((t) => t.name)).toEqual(['get_weather', 'get_time', 'book_table', 'get_location']);
  });

  it('pauses for approval, runs the tool when approved, and answers with its result', async () => {
    const { chat } = setup();
    const store = chat();
    await store.send('What is the weather in Oslo?');
    let s = store.getSnapshot();
    expect(s.haltReason).toBe('approval');
    expect(s.pending).toEqual([expect.objectContaining({ kind: 'approval', name: 'get_weather', input: { city: 'Oslo' } })]);
    await answerAndFinish(store, store.approve);
    s = store.getSnapshot();
    expect(s).toMatchObject({ status: 'ready', haltReason: 'completed', pending: [] });
    const result = s.thread.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool-result');
    expect(result).toMatchObject({ name: 'get_weather', output: demoWeather('Oslo') });
    expect(lastText(store)).toContain(`${demoWeather('Oslo').temperatureC} °C`);
  });

  it('denied: the tool does not run and the model is told', async () => {
    const { chat } = setup();
    const store = chat();
    await store.send('weather in Rome');
    await answerAndFinish(store, store.deny);
    const result = store.getSnapshot().thread.messages.flatMap((m) => m.parts).find((p) => p.type === 'tool-result');
    expect(result).toMatchObject({ name: 'get_weather', isError: true });
    expect(lastText(store)).toContain('You denied the `get_weather` call');
  });

  it('runs a tool that needs no approval within the same run', async () => {
    const { chat } = setup();
    const store = chat();
    await store.send('what time is it?');
    const s = store.getSnapshot();
    expect(s.haltReason).toBe('completed');
    expect(s.thread.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(lastText(store)).toMatch(/The time in UTC is \*\*\d\d:\d\d:\d\d\*\*/);
  });

  it('cancel stops the provider stream and keeps the partial answer', async () => {
    const { chat, app } = setup({ delayScale: 0.2 });
    const store = chat();
    void store.send('a long one please');
    await until(store, () => lastText(store).includes(longSentence(2)));
    const runId = store.getSnapshot().run!.runId;
    await store.stop();
    const partial = lastText(store);
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'cancelled' });
    expect(partial).toContain(longSentence(1));
    expect(partial).not.toContain(longSentence(LONG_SENTENCES));
    // The run really ended on the server: its log closes with one chat-finish 'cancelled'.
    const log = await (await app.request(`/api/runs/${runId}/events`)).text();
    expect(log.match(/"type":"chat-finish"/g)).toHaveLength(1);
    expect(log).toContain('"haltReason":"cancelled"');
    // The stopped message keeps what the provider reported before the Stop (its input count and cost).
    expect(assistants(store).at(-1)!.metadata?.usage).toMatchObject({ inputTokens: expect.any(Number), cost: expect.any(Number) });
    await new Promise((r) => setTimeout(r, 100));
    expect(lastText(store)).toBe(partial);
  });

  it('a reloaded page resumes a streaming run with no duplicated and no missing text', async () => {
    const { chat } = setup({ delayScale: 0.05 });
    const persist = memoryPersist();
    const first = chat({ persist });
    const disconnect = first.connect();
    await first.idle();
    void first.send('long');
    await until(first, () => lastText(first).includes(longSentence(3)));
    disconnect();
    await first.persisted();
    expect(persist.records.get('t1')?.run?.runId).toMatch(/^run_/);
    const second = chat({ persist });
    second.connect();
    await second.idle();
    expect(second.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'completed' });
    expect(assistants(second)).toHaveLength(1);
    expect(lastText(second)).toBe(longAnswer());
  });

  it('a provider error ends the run with a readable message', async () => {
    const { chat } = setup();
    const store = chat();
    await store.send('show me an error');
    const s = store.getSnapshot();
    expect(s.status).toBe('error');
    expect(s.error?.message).toContain(ERROR_MESSAGE);
  });

  it('a long thread keeps working on a model with a small window: older turns become a visible summary', async () => {
    const { chat, mock } = setup();
    const store = chat({ model: 'demo:mock-small' });
    const questions = ['code please', 'show me a table', 'tell me about Parlance', 'code again', 'one more table', 'and a code sample', 'a table of dialects', 'code once more', 'and a last question'];
    for (const q of questions) {
      await store.send(q);
      expect(store.getSnapshot().haltReason).toBe('completed');
      expect(store.getSnapshot().error).toBeUndefined();
    }
    const messages = store.getSnapshot().thread.messages;
    // Every question and every answer is still in the thread, for people to read.
    expect(messages.filter((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text'))).toHaveLength(questions.length);
    expect(messages.filter((m) => m.role === 'assistant')).toHaveLength(questions.length);
    const summaries = messages.filter((m) => m.parts.some((p) => p.type === 'summary'));
    expect(summaries.length).toBeGreaterThan(0);
    const summary = summaries.at(-1)!.parts[0] as Extract<Message['parts'][number], { type: 'summary' }>;
    expect(summary.text).toContain('"code please"');
    // What the model received fit its window and carried the summary instead of the older turns.
    const last = mock.requests.at(-1)!.body as { model: string; messages: { role: string; content: unknown }[] };
    expect(last.model).toBe(SMALL_MODEL);
    expect(Math.ceil(JSON.stringify(last).length / 4)).toBeLessThanOrEqual(SMALL_WINDOW);
    // The summary travels as the conversation's first user text, never in the system prompt.
    expect(last.messages[0]!.role).toBe('user');
    expect(JSON.stringify(last.messages[0]!.content)).toContain('The user asked');
    expect(JSON.stringify(last.messages.slice(1))).not.toContain('code please');
    expect(lastText(store).length).toBeGreaterThan(0);
  });

  // Issue #12 item 3: the failed turn left an empty assistant message, which the Anthropic encoder
  // drops, so the next user message was merged into the failed one ("error" again: a 529 forever).
  it('a failed turn keeps its error in the thread and the next message reaches the model on its own', async () => {
    const { chat, mock } = setup();
    const store = chat();
    await store.send('show me an error');
    const failed = store.getSnapshot().thread.messages.at(-1)!;
    expect(failed).toMatchObject({ role: 'assistant', parts: [], error: { code: 'overloaded', message: expect.stringContaining(ERROR_MESSAGE) } });
    await store.send('hello again');
    expect(store.getSnapshot()).toMatchObject({ status: 'ready', haltReason: 'completed' });
    expect(lastText(store)).toContain('You said: **hello again**');
    const sent = (mock.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(sent).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hello again' }] }]);
    // retry() after a failure asks again for the failed message, without the failed answer.
    await store.send('another error');
    await store.retry();
    const retried = (mock.requests.at(-1)!.body as { messages: { role: string; content: unknown }[] }).messages;
    expect(retried.at(-1)).toEqual({ role: 'user', content: [{ type: 'text', text: 'another error' }] });
    expect(store.getSnapshot().thread.messages.filter((m) => m.error)).toHaveLength(2);
  });
});
