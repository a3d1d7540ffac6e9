/**
 * Threads that outgrow the context window, for every dialect: long threads decoded from
 * each dialect's wire format go through the engine with a small window; the request the
 * model receives is encoded by the dialect and checked against the provider's published
 * schema and every pairing rule, its estimate stays within the budget, and the provider
 * state of every message kept travels untouched.
 */
import { DIALECT_IDS, type DialectId, getDialect } from '@parlance/dialects';
import type { Message, ModelRequest } from '@parlance/protocol';
import { fakeModel } from '@parlance/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ruleViolations, schemaErrors } from '../../../dialects/test/handoff-rules.ts';
import { modelFor } from '../../../dialects/test/handoff-thread.ts';
import { readRefusal } from '../../src/context/context-policy.ts';
import { applySummaries, createEngine, estimateRequestTokens, tool } from '../../src/index.ts';
import { counterIds } from '../helpers.ts';
import { longThread } from './long-thread.ts';

const lookup = tool({ name: 'lookup', description: 'Looks a topic up', input: z.object({ query: z.string() }), execute: ({ query }) => ({ found: query }) });
const WINDOW = 6_000;
const RESERVE = 1_000;

const threads = new Map<DialectId, Message[]>();
async function thread(dialect: DialectId): Promise<Message[]> {
  return threads.get(dialect)!;
}

// Decoding 48 wire turns per dialect and compiling the providers' schemas are the slow
// parts: once, before the tests, with room for a loaded machine.
beforeAll(async () => {
  for (const dialect of DIALECT_IDS) {
    threads.set(dialect, await longThread(dialect, 12));
    schemaErrors(dialect, getDialect(dialect).encodeRequest({ model: modelFor(dialect), messages: [question()] }));
  }
}, 120_000);

function question(): Message {
  return { id: 'user-last', role: 'user', parts: [{ type: 'text', text: 'And what about the last topic?' }] };
}

/** The request as the dialect encodes it, with every problem a provider would reject it for. */
function check(dialect: DialectId, request: Omit<ModelRequest, 'model'>) {
  const body = getDialect(dialect).encodeRequest({ ...request, model: modelFor(dialect) }) as Record<string, any>;
  return { body, schema: schemaErrors(dialect, body), rules: ruleViolations(dialect, body) };
}

/** Reasoning signatures and encrypted reasoning of the messages sent: each must reach the wire as it was decoded. */
function expectStateKept(dialect: DialectId, sent: Message[], body: unknown) {
  const wire = JSON.stringify(body);
  const tokens = sent.flatMap((m) =>
    m.parts.flatMap((p) => {
      if (p.type !== 'reasoning') return [];
      const state = p.providerState?.[dialect] as Record<string, unknown> | undefined;
      return [p.signature, state?.signature, state?.encryptedContent, state?.thoughtSignature].filter((t): t is string => typeof t === 'string');
    }),
  );
  if (dialect !== 'openai_completions' && dialect !== 'ollama_chat') expect(tokens.length).toBeGreaterThan(0);
  for (const token of tokens) expect(wire).toContain(token);
}

describe.each(DIALECT_IDS)('%s: a thread longer than the window', (dialect) => {
  it('drop-oldest: whole turns go, the request fits and keeps every pairing rule and all provider state', async () => {
    const history = await thread(dialect);
    expect(estimateRequestTokens({ messages: history })).toBeGreaterThan(3 * WINDOW);
    const model = fakeModel({ dialect, script: [{ text: 'The last topic was covered.', usage: { inputTokens: 4000, outputTokens: 8 } }] });
    const engine = createEngine({ model, generateId: counterIds(), tools: [lookup], context: { strategy: 'drop-oldest', contextWindow: WINDOW, reserveOutputTokens: RESERVE } });
    const result = await engine.chat({ messages: [...history, question()] });

    expect(result.haltReason).toBe('completed');
    const sent = model.requests[0]!;
    expect(estimateRequestTokens(sent, dialect)).toBeLessThanOrEqual(WINDOW - RESERVE);
    // What was kept is the newest whole turns, in order, ending with the question.
    const ids = sent.messages.map((m) => m.id);
    const all = [...history, question()].map((m) => m.id);
    expect(all.slice(all.length - ids.length)).toEqual(ids);
    expect(sent.messages[0]!.role).toBe('user');
    expect(ids.length).toBeGreaterThan(4);
    const { body, schema, rules } = check(dialect, sent);
    expect(schema).toBe('');
    expect(rules).toEqual([]);
    expectStateKept(dialect, sent.messages, body);
    // The thread itself keeps everything.
    expect(result.thread.messages.length).toBe(history.length + 2);
  });

  it('summarize: the oldest turns become a visible summary part; requests send it instead of them', async () => {
    const history = await thread(dialect);
    const summarizer = fakeModel({ script: [{ text: 'The user asked about topics 0 to 8; each was looked up.', usage: { inputTokens: 3000, outputTokens: 15 } }] });
    const model = fakeModel({ dialect, script: [{ text: 'Answered.' }] });
    const engine = createEngine({
      model,
      generateId: counterIds(),
      tools: [lookup],
      context: { strategy: 'summarize', contextWindow: WINDOW, reserveOutputTokens: RESERVE, summaryModel: summarizer },
    });
    const first = await engine.chat({ messages: [...history, question()] });
    expect(first.haltReason).toBe('completed');
    expect(summarizer.requests).toHaveLength(1);
    // The summary's call counts in the run's usage.
    expect(first.usage.inputTokens).toBeGreaterThanOrEqual(3000);
    const summary = first.thread.messages.find((m) => m.parts.some((p) => p.type === 'summary'))!;
    expect(summary.role).toBe('user');
    const part = summary.parts[0] as Extract<Message['parts'][number], { type: 'summary' }>;
    expect(part.text).toContain('topics 0 to 8');
    expect(history.map((m) => m.id)).toContain(part.through);
    // The summarizer read the older turns, up to the last one summarized, as a transcript.
    const round = part.through.split('-')[1];
    expect(JSON.stringify(summarizer.requests[0]!.messages)).toContain(`Answer ${round}:`);

    const sent = model.requests[0]!;
    expect(estimateRequestTokens(sent, dialect)).toBeLessThanOrEqual(WINDOW - RESERVE);
    expect(sent.messages[0]).toMatchObject({ role: 'user', parts: [{ type: 'summary' }] });
    expect(sent.messages[1]!.role).toBe('user');
    expect(sent.messages.map((m) => m.id)).not.toContain(part.through);
    const { body, schema, rules } = check(dialect, sent);
    expect(schema).toBe('');
    expect(rules).toEqual([]);
    expect(JSON.stringify(body)).toContain('topics 0 to 8');
    expectStateKept(dialect, sent.messages, body);

    // The next run on the saved thread sends the summary again, without summarizing again.
    const next = await engine.chat({ thread: first.thread, prompt: 'Thanks!' });
    expect(next.haltReason).toBe('completed');
    expect(summarizer.requests).toHaveLength(1);
    expect(model.requests[1]!.messages[0]).toMatchObject({ parts: [{ type: 'summary' }] });
    expect(check(dialect, model.requests[1]!).rules).toEqual([]);
  });
});

describe('context policy', () => {
  it('fail: a typed context_length_exceeded before anything is sent', async () => {
    const history = await thread('openai_completions');
    const model = fakeModel({ script: [{ text: 'never' }] });
    const engine = createEngine({ model, context: { strategy: 'fail', contextWindow: WINDOW } });
    const result = await engine.chat({ messages: [...history, question()] });
    expect(result.haltReason).toBe('error');
    expect(result.error).toMatchObject({ code: 'context_length_exceeded' });
    expect(result.error!.message).toMatch(/needs about \d+ tokens; fake:fake-model takes 6000/);
    expect(model.requests).toHaveLength(0);
  });

  it('a provider refusal: the strategy runs once more, sized by the refusal, and the call is made again; the refused attempt leaves nothing', async () => {
    const history = await thread('anthropic_messages');
    const model = fakeModel({
      dialect: 'anthropic_messages',
      script: [
        { error: { code: 'context_length_exceeded', status: 400, message: 'prompt is too long: 25000 tokens > 12000 maximum' } },
        { text: 'Fine now.' },
      ],
    });
    // No window configured and none in the catalog for a fake model: only the refusal tells.
    const engine = createEngine({ model, tools: [lookup], generateId: counterIds(), context: { strategy: 'drop-oldest' } });
    const result = await engine.chat({ messages: [...history, question()] });
    expect(result.haltReason).toBe('completed');
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]!.messages.length).toBeLessThan(model.requests[0]!.messages.length);
    const added = result.thread.messages.slice(history.length + 1);
    expect(added).toHaveLength(1);
    expect(added[0]!.parts).toEqual([{ type: 'text', text: 'Fine now.' }]);
    expect(check('anthropic_messages', model.requests[1]!).rules).toEqual([]);
  });

  it('a second refusal ends the run with the typed error; without a context option the first one does', async () => {
    const history = await thread('openai_completions');
    const refuse = { error: { code: 'context_length_exceeded' as const, status: 400, message: "This model's maximum context length is 8192 tokens. However, your messages resulted in 30000 tokens." } };
    const model = fakeModel({ script: [refuse] });
    const withPolicy = await createEngine({ model, context: { strategy: 'drop-oldest' } }).chat({ messages: [...history, question()] });
    expect(withPolicy.error).toMatchObject({ code: 'context_length_exceeded' });
    expect(model.requests).toHaveLength(2);
    const bare = fakeModel({ script: [refuse] });
    const without = await createEngine({ model: bare }).chat({ messages: [...history, question()] });
    expect(without.error).toMatchObject({ code: 'context_length_exceeded' });
    expect(bare.requests).toHaveLength(1);
  });

  it('uses the catalog window of a known model and the usage of earlier steps', async () => {
    const model = fakeModel({ script: [{ text: 'ok', usage: { inputTokens: 10, outputTokens: 1 } }] });
    const known = Object.assign(model, { info: { provider: 'fake', id: 'm', known: true, contextWindow: 3_000, maxOutputTokens: 500, input: ['text'] } });
    const history = await thread('ollama_chat');
    const result = await createEngine({ model: known, context: { strategy: 'drop-oldest' } }).chat({ messages: [...history, question()] });
    expect(result.haltReason).toBe('completed');
    expect(estimateRequestTokens(model.requests[0]!)).toBeLessThanOrEqual(3_000 - 500);
  });

  it('Anthropic: what precedes a compaction block is not counted, and the block is never dropped', async () => {
    const history = structuredClone(await thread('anthropic_messages'));
    const at = history.findIndex((m) => m.id === 'assistant-10');
    history[at]!.parts.unshift({ type: 'compaction', text: 'Rounds 0 to 9 looked topics up.', providerState: { anthropic_messages: { type: 'compaction' } } });
    const model = fakeModel({ dialect: 'anthropic_messages', script: [{ text: 'ok' }] });
    const engine = createEngine({ model, tools: [lookup], context: { strategy: 'drop-oldest', contextWindow: WINDOW, reserveOutputTokens: RESERVE } });
    const result = await engine.chat({ messages: [...history, question()] });
    expect(result.haltReason).toBe('completed');
    const sent = model.requests[0]!;
    // Counted from the compaction on, the thread fits: nothing was dropped, the block travels.
    expect(sent.messages).toHaveLength(history.length + 1);
    const { body, rules } = check('anthropic_messages', sent);
    expect(rules).toEqual([]);
    expect(JSON.stringify(body)).toContain('Rounds 0 to 9 looked topics up.');
  });

  it('generate: one call gets the same policy (drop, fail) and sends a thread\'s summary instead of what it covers', async () => {
    const history = await thread('openai_responses');
    const model = fakeModel({ dialect: 'openai_responses', script: [{ text: 'ok' }] });
    const engine = createEngine({ model, context: { strategy: 'drop-oldest', contextWindow: WINDOW, reserveOutputTokens: RESERVE } });
    const response = await engine.generate({ messages: [...history, question()] });
    expect(response.finishReason).toBe('stop');
    expect(estimateRequestTokens(model.requests[0]!, 'openai_responses')).toBeLessThanOrEqual(WINDOW - RESERVE);
    expect(check('openai_responses', model.requests[0]!).rules).toEqual([]);

    const failing = createEngine({ model, context: { strategy: 'fail', contextWindow: WINDOW } });
    const refused = await failing.generate({ messages: [...history, question()] });
    expect(refused).toMatchObject({ finishReason: 'error', error: { code: 'context_length_exceeded' } });
    expect(model.requests).toHaveLength(1);

    const summarized: Message[] = [...history, { id: 'sum', role: 'user', parts: [{ type: 'summary', text: 'All earlier rounds.', through: 'answer-10' }] }, question()];
    await createEngine({ model }).generate({ messages: summarized });
    expect(model.requests[1]!.messages.map((m) => m.id)).toEqual(['sum', 'user-11', 'assistant-11', 'tool-11', 'answer-11', 'user-last']);
  });

  it('a summary whose message is gone is ignored; the latest summary wins', () => {
    const m = (id: string, role: Message['role'], text: string): Message => ({ id, role, parts: [{ type: 'text', text }] });
    const s = (id: string, through: string): Message => ({ id, role: 'user', parts: [{ type: 'summary', text: `up to ${through}`, through }] });
    const messages = [m('sys', 'system', 'rules'), m('u1', 'user', 'a'), m('a1', 'assistant', 'b'), m('u2', 'user', 'c'), s('s1', 'a1'), m('a2', 'assistant', 'd'), m('u3', 'user', 'e'), s('s2', 'a2')];
    expect(applySummaries(messages).map((x) => x.id)).toEqual(['sys', 's2', 'u3']);
    expect(applySummaries(messages.slice(0, 7)).map((x) => x.id)).toEqual(['sys', 's1', 'u2', 'a2', 'u3']);
    expect(applySummaries([m('u1', 'user', 'a'), s('s9', 'gone')]).map((x) => x.id)).toEqual(['u1', 's9']);
  });

  it('reads the numbers in providers\' refusals', () => {
    expect(readRefusal('prompt is too long: 210000 tokens > 200000 maximum')).toEqual({ used: 210000, limit: 200000 });
    expect(readRefusal("This model's maximum context length is 128000 tokens. However, your messages resulted in 130,532 tokens.")).toEqual({ used: 130532, limit: 128000 });
    expect(readRefusal('The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).')).toEqual({});
  });
});
