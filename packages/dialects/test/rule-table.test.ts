/**
 * Issue 14: every request a provider accepts. Three parts:
 * 1. each numbered item of the issue, with the input it gives, through every dialect it names;
 * 2. the rule table of each dialect (./rule-table.ts): each rule gets a request that would break
 *    it, and the encoder's body must keep it; each rule is also shown to fail on a bad body;
 * 3. generated threads (fast-check: tool rounds, parallel calls, missing, late and early results,
 *    foreign provider state, whitespace, random settings) checked against the whole table of
 *    every dialect. Runs are bounded (the schema validators dominate the time).
 */
import type { Message, ModelRequest, Part } from '@parlance/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { getDialect } from '../src/registry.ts';
import { MISSING_TOOL_RESULT } from '../src/shared/tool-pairs.ts';
import { DIALECT_IDS, type DialectId, type EncodeWarning } from '../src/types.ts';
import { modelFor } from './handoff-thread.ts';
import { msg, text, user } from './requests.ts';
import { RULE_TABLE, tableViolations } from './rule-table.ts';

type Json = Record<string, any>;

const TOOLS = [
  { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } },
  { name: 'get_time', description: 'Time', inputSchema: { type: 'object', properties: { zone: { type: 'string' } } } },
];

function encode(target: DialectId, request: Omit<ModelRequest, 'model'>, model = modelFor(target)): { body: Json; warnings: EncodeWarning[] } {
  const warnings: EncodeWarning[] = [];
  const body = getDialect(target).encodeRequest({ model, ...request }, { onWarning: (w) => warnings.push(w) }) as Json;
  return { body, warnings };
}

function expectKept(target: DialectId, request: Omit<ModelRequest, 'model'>, model?: string): Json {
  const full = { model: model ?? modelFor(target), ...request };
  const { body } = encode(target, request, full.model);
  expect(tableViolations(target, body, full), `${target} rule table`).toEqual([]);
  return body;
}

const call = (id: string, name = 'get_weather', input: unknown = { city: 'Paris' }): Part => ({ type: 'tool-call', id, name, input });
const result = (id: string, output: unknown = 'sunny', name = 'get_weather'): Part => ({ type: 'tool-result', toolCallId: id, name, output });

describe('issue 14, item by item', () => {
  it('1. strict structured output with an open schema: closed, all required, optional made nullable (Responses, Chat Completions)', () => {
    const output = { type: 'json' as const, schema: { type: 'object', properties: { a: { type: 'string' } } } };
    const strictTool = { name: 't', inputSchema: { type: 'object', properties: { b: { type: 'number' } }, required: [] }, strict: true };
    const responses = expectKept('openai_responses', { messages: [user('x')], output, tools: [strictTool] });
    expect(responses.text.format).toMatchObject({ strict: true, schema: { type: 'object', properties: { a: { type: ['string', 'null'] } }, required: ['a'], additionalProperties: false } });
    expect(responses.tools[0]).toMatchObject({ strict: true, parameters: { required: ['b'], additionalProperties: false, properties: { b: { type: ['number', 'null'] } } } });
    const completions = expectKept('openai_completions', { messages: [user('x')], output, tools: [strictTool] });
    expect(completions.response_format.json_schema).toMatchObject({ strict: true, schema: { required: ['a'], additionalProperties: false } });
    // A schema strict mode cannot express (an open map) goes out unchanged with strict: false, and says so.
    const map = { type: 'json' as const, schema: { type: 'object', properties: { tags: { type: 'object', additionalProperties: { type: 'string' } } } } };
    const { body, warnings } = encode('openai_responses', { messages: [user('x')], output: map });
    expect(body.text.format).toMatchObject({ strict: false, schema: map.schema });
    expect(warnings).toEqual([expect.objectContaining({ setting: 'output.strict' })]);
  });

  it('2. a tool result before (inside) its call: Anthropic sends it after the call, Gemini answers the call', () => {
    const messages = [user('Paris?'), msg('assistant', call('call_x'), result('call_x')), user('and?')];
    const anthropic = expectKept('anthropic_messages', { messages, tools: TOOLS });
    expect(anthropic.messages.map((t: Json) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(anthropic.messages[0].content).toEqual([{ type: 'text', text: 'Paris?' }]);
    expect(anthropic.messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'call_x', content: 'sunny' },
      { type: 'text', text: 'and?' },
    ]);
    const gemini = expectKept('google_gemini', { messages, tools: TOOLS });
    expect(gemini.contents[2].parts[0]).toEqual({ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } });
    // Written before its call in the same message: still paired.
    const before = [user('Paris?'), msg('assistant', result('call_x'), call('call_x')), user('and?')];
    for (const target of DIALECT_IDS) expect(JSON.stringify(expectKept(target, { messages: before, tools: TOOLS }))).toContain('sunny');
  });

  it('3. unanswered calls (also 4 parallel calls with 2 answered) are answered by an error result in every dialect', () => {
    const messages = [
      user('Weather?'),
      msg('assistant', call('c1'), call('c2'), call('c3', 'get_time', {}), call('c4', 'get_time', {})),
      msg('tool', result('c1'), result('c3', '12:00', 'get_time')),
      user('Never mind.'),
    ];
    for (const target of DIALECT_IDS) {
      const body = expectKept(target, { messages, tools: TOOLS });
      const json = JSON.stringify(body);
      expect(json.split(MISSING_TOOL_RESULT).length - 1, target).toBe(2);
    }
    const completions = encode('openai_completions', { messages, tools: TOOLS }).body;
    expect(completions.messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'tool', 'tool', 'user']);
  });

  it('4. Responses: no reasoning item without its following item', () => {
    const reasoning: Part = { type: 'reasoning', text: 'thinking', providerState: { openai_responses: { itemId: 'rs_1', encryptedContent: 'enc_abcdefgh' } } };
    // Its call went unanswered (now answered with an error result), and a turn that is only reasoning.
    const unanswered = expectKept('openai_responses', { messages: [user('x'), msg('assistant', reasoning, call('c1')), user('y')], tools: TOOLS });
    expect(unanswered.input.map((i: Json) => i.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call_output', 'message']);
    const alone = expectKept('openai_responses', { messages: [user('x'), msg('assistant', reasoning), user('y')] });
    expect(alone.input.some((i: Json) => i.type === 'reasoning')).toBe(false);
    expect(JSON.stringify(alone.input)).toContain('<thinking>thinking</thinking>');
  });

  it('5. Anthropic thinking with a foreign tool loop and added user text: thinking off for that request, with a warning', () => {
    const messages = [user('Weather?'), msg('assistant', { type: 'reasoning', text: 'hmm', providerState: { openai_responses: { itemId: 'rs_1' } } }, call('c1')), msg('tool', result('c1')), user('Also Rome?')];
    const { body, warnings } = encode('anthropic_messages', { messages, tools: TOOLS, thinking: { effort: 'low' } });
    expect(tableViolations('anthropic_messages', body, { model: modelFor('anthropic_messages'), messages })).toEqual([]);
    expect(body).not.toHaveProperty('thinking');
    expect(warnings).toEqual([expect.objectContaining({ setting: 'thinking' })]);
  });

  it('6. Anthropic thinking with a forced tool: thinking off for that request, with a warning', () => {
    const { body, warnings } = encode('anthropic_messages', { messages: [user('x')], tools: TOOLS, toolChoice: { type: 'tool', name: 'get_weather' }, thinking: { effort: 'low' } });
    expect(body.tool_choice).toEqual({ type: 'tool', name: 'get_weather' });
    expect(body).not.toHaveProperty('thinking');
    expect(warnings.map((w) => w.setting)).toEqual(['thinking']);
  });

  it('7. whitespace-only text (Claude\'s own " " and "\\n\\n" blocks) and a prefill ending in whitespace', () => {
    const messages = [user('Hi'), msg('assistant', text(' '), text('Hello!'), text('\n\n')), user('  '), user('Go on'), msg('assistant', text('The answer is '))];
    const body = expectKept('anthropic_messages', { messages });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello!' }] },
      { role: 'user', content: [{ type: 'text', text: 'Go on' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'The answer is' }] },
    ]);
  });

  it('8. tool_choice without tools is not sent, and each dialect says so', () => {
    for (const target of ['openai_completions', 'openai_responses', 'anthropic_messages', 'google_gemini'] as const) {
      const { body, warnings } = encode(target, { messages: [user('x')], toolChoice: 'required' });
      expect(tableViolations(target, body, { model: modelFor(target), messages: [] }), target).toEqual([]);
      expect(warnings.map((w) => w.setting), target).toEqual(['toolChoice']);
    }
    // Anthropic's own conflicts with thinking: temperature and a low top_p are left out, with warnings.
    const { body, warnings } = encode('anthropic_messages', { messages: [user('x')], thinking: { effort: 'low' }, temperature: 0.2, topP: 0.5 });
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(warnings.map((w) => w.setting)).toEqual(['temperature', 'topP']);
  });

  it('9a. Ollama: results go before the user text that shares their message', () => {
    const body = expectKept('ollama_chat', { messages: [user('Weather?'), msg('assistant', call('c1')), msg('user', result('c1'), text('Thanks, and Rome?'))], tools: TOOLS });
    expect(body.messages.map((m: Json) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
  });

  it('9b. a result that arrives after a later assistant turn is paired with its call (Anthropic, Chat Completions, Gemini)', () => {
    const messages = [user('Weather?'), msg('assistant', call('c1')), msg('assistant', text('Still checking.')), msg('tool', result('c1', 'late sun')), user('So?')];
    for (const target of DIALECT_IDS) {
      const body = expectKept(target, { messages, tools: TOOLS });
      expect(JSON.stringify(body), target).toContain('late sun');
      expect(JSON.stringify(body), target).not.toContain(MISSING_TOOL_RESULT);
    }
  });

  it('9c. a system-only request: Gemini and Anthropic get the prompt as the user turn', () => {
    const gemini = expectKept('google_gemini', { system: 'Write a haiku.', messages: [] });
    expect(gemini.contents).toEqual([{ role: 'user', parts: [{ text: 'Write a haiku.' }] }]);
    expect(gemini).not.toHaveProperty('systemInstruction');
    const anthropic = expectKept('anthropic_messages', { system: 'Write a haiku.', messages: [] });
    expect(anthropic.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Write a haiku.' }] }]);
  });

  it('9d. a compaction block goes out with the beta header it needs', () => {
    const messages = [user('x'), msg('assistant', { type: 'reasoning', text: 'Earlier: the user asked about Paris.', providerState: { anthropic_messages: { type: 'compaction' } } }), user('y')];
    const body = expectKept('anthropic_messages', { messages });
    expect(getDialect('anthropic_messages').requestHeaders!(body)).toEqual({ 'anthropic-beta': 'compact-2026-01-12' });
    expect(getDialect('anthropic_messages').requestHeaders!(expectKept('anthropic_messages', { messages: [user('x')] }))).toEqual({});
  });

  it('a thread that starts with the assistant (a welcome message, or a whitespace-only first question) starts with a user turn for Anthropic and Gemini', () => {
    const welcome = [msg('assistant', text('Hi! How can I help?')), user('Weather?')];
    const anthropic = expectKept('anthropic_messages', { messages: welcome });
    expect(anthropic.messages.map((t: Json) => t.role)).toEqual(['user', 'assistant', 'user']);
    expect(anthropic.messages[1].content).toEqual([{ type: 'text', text: 'Hi! How can I help?' }]);
    const gemini = expectKept('google_gemini', { messages: welcome });
    expect(gemini.contents.map((c: Json) => c.role)).toEqual(['user', 'model', 'user']);
    expect(expectKept('anthropic_messages', { messages: [user(' '), msg('assistant', text('Hello.')), user('Hi')] }).messages[0].role).toBe('user');
  });

  it("9e. Gemini thinkingLevel uses the discovery document's uppercase enum", () => {
    for (const effort of ['minimal', 'low', 'medium', 'high', 'xhigh'] as const) {
      const body = expectKept('google_gemini', { messages: [user('x')], thinking: { effort } }, 'gemini-3-pro-preview');
      expect(body.generationConfig.thinkingConfig.thinkingLevel).toMatch(/^[A-Z]+$/);
    }
  });
});

/** A request that would break each rule if the encoder passed it through as given. */
const BREAKERS: Record<string, Omit<ModelRequest, 'model'>> = {
  'published-schema': { messages: [user('x'), msg('assistant', call('id with spaces and a very long tail that goes past every limit of every provider')), user('y')], tools: TOOLS },
  'tool-pairing': { messages: [user('x'), msg('assistant', result('c0'), call('c1'), call('c1')), msg('assistant', call('c2')), msg('tool', result('c2'), result('ghost')), user('y')], tools: TOOLS },
  'tool-choice-needs-tools': { messages: [user('x')], toolChoice: 'required' },
  'tool-config-needs-tools': { messages: [user('x')], toolChoice: 'auto' },
  'strict-schemas': { messages: [user('x')], output: { type: 'json', schema: { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'string' } } } } } }, tools: [{ ...TOOLS[0]!, strict: true }] },
  'reasoning-followed-by-its-item': { messages: [user('x'), msg('assistant', { type: 'reasoning', text: 'r', providerState: { openai_responses: { itemId: 'rs_9', encryptedContent: 'enc_12345678' } } }), user('y')] },
  'at-least-one-message': { system: 'Only a system prompt.', messages: [] },
  'contents-not-empty': { system: 'Only a system prompt.', messages: [] },
  'reasoning-replayable': { messages: [user('x'), msg('assistant', { type: 'reasoning', text: 'summary only', providerState: { openai_responses: { itemId: 'rs_3' } } }, text('ok')), user('y')] },
  'thinking-signed': { messages: [user('x'), msg('assistant', { type: 'reasoning', text: 'foreign thought', providerState: { google_gemini: { thoughtSignature: 'g_sig_123456' } } }, text('ok')), user('y')], thinking: { effort: 'low' } },
  'non-whitespace-text': { messages: [user('x'), msg('assistant', text(' '), text('ok'), text('\n\n')), user('y')] },
  'prefill-without-trailing-whitespace': { messages: [user('x'), msg('assistant', text('Prefill ending in a space '))] },
  'thinking-first-in-tool-turn': { messages: [user('x'), msg('assistant', text('calling'), call('c1')), msg('tool', result('c1')), user('more?')], tools: TOOLS, thinking: { effort: 'low' } },
  'thinking-without-forced-tool': { messages: [user('x')], tools: TOOLS, toolChoice: 'required', thinking: { effort: 'low' } },
  'thinking-sampling': { messages: [user('x')], thinking: { effort: 'high' }, temperature: 0.1, topP: 0.3 },
  'budget-below-max-tokens': { messages: [user('x')], thinking: { budgetTokens: 50_000 }, maxOutputTokens: 4000 },
  'closed-output-schema': { messages: [user('x')], output: { type: 'json', schema: { type: 'object', properties: { a: { type: 'object', properties: {} } } } } },
  'compaction-beta-header': { messages: [user('x'), msg('assistant', { type: 'reasoning', text: 'summary', providerState: { anthropic_messages: { type: 'compaction' } } }), user('y')] },
  'responses-equal-calls': { messages: [user('x'), msg('assistant', call('c1'), call('c2', 'get_time', {})), msg('tool', result('c2', 'noon', 'get_time')), user('y')], tools: TOOLS },
  'thinking-level-enum': { messages: [user('x')], thinking: { effort: 'xhigh' } },
  'gemini-3-call-signatures': { messages: [user('x'), msg('assistant', call('c1')), msg('tool', result('c1')), user('y')], tools: TOOLS },
  'results-right-after-calls': { messages: [user('x'), msg('assistant', call('c1')), msg('user', text('and?'), result('c1'))], tools: TOOLS },
};

/** A body that breaks each rule: shows the rule's check can fail. */
const BAD: Record<string, Json> = {
  'tool-choice-needs-tools': { messages: [], input: [], contents: [], tool_choice: 'auto' },
  'tool-config-needs-tools': { contents: [], toolConfig: {} },
  'reasoning-followed-by-its-item': { input: [{ type: 'reasoning', id: 'rs_1', summary: [] }, { type: 'message', role: 'user', content: 'x' }] },
  'at-least-one-message': { messages: [] },
  'reasoning-replayable': { input: [{ type: 'reasoning', id: 'rs_1', summary: [] }, { type: 'message', role: 'assistant', content: 'x' }] },
  'thinking-signed': { messages: [{ role: 'assistant', content: [{ type: 'thinking', thinking: 'x' }] }] },
  'contents-not-empty': { contents: [] },
  'non-whitespace-text': { messages: [{ role: 'user', content: [{ type: 'text', text: '\n\n' }] }] },
  'prefill-without-trailing-whitespace': { messages: [{ role: 'user', content: [] }, { role: 'assistant', content: [{ type: 'text', text: 'a ' }] }] },
  'thinking-first-in-tool-turn': { thinking: { type: 'enabled' }, messages: [{ role: 'assistant', content: [{ type: 'tool_use' }] }] },
  'thinking-without-forced-tool': { thinking: { type: 'enabled' }, tool_choice: { type: 'any' }, messages: [] },
  'thinking-sampling': { thinking: { type: 'enabled' }, temperature: 0.5, messages: [] },
  'budget-below-max-tokens': { thinking: { type: 'enabled', budget_tokens: 4000 }, max_tokens: 4000, messages: [] },
  'closed-output-schema': { messages: [], output_config: { format: { schema: { type: 'object', properties: {} } } } },
  'responses-equal-calls': { contents: [{ role: 'model', parts: [{ functionCall: {} }, { functionCall: {} }] }, { role: 'user', parts: [{ functionResponse: {} }] }] },
  'thinking-level-enum': { contents: [], generationConfig: { thinkingConfig: { thinkingLevel: 'low' } } },
  'gemini-3-call-signatures': { contents: [{ role: 'model', parts: [{ functionCall: {} }] }] },
  'results-right-after-calls': { messages: [{ role: 'user' }, { role: 'assistant', tool_calls: [{}] }, { role: 'user' }] },
  'strict-schemas': {
    messages: [],
    input: [],
    response_format: { json_schema: { strict: true, schema: { type: 'object', properties: { a: {} } } } },
    text: { format: { strict: true, schema: { type: 'object', properties: { a: {} } } } },
  },
  'compaction-beta-header': { messages: [{ role: 'assistant', content: [{ type: 'compaction' }] }], context_management: null },
};

describe.each(DIALECT_IDS)('rule table: %s', (target) => {
  const model = target === 'google_gemini' ? 'gemini-3-pro-preview' : modelFor(target);
  it.each(RULE_TABLE[target].map((rule) => [rule.id, rule] as const))('%s: the encoder keeps it on a request that would break it', (id, rule) => {
    const breaker = BREAKERS[id];
    expect(breaker, `a breaking request for ${id}`).toBeDefined();
    const request = { model, ...breaker! };
    const body = getDialect(target).encodeRequest(request) as Json;
    expect(rule.check(body, request)).toEqual([]);
    if (id !== 'published-schema' && id !== 'tool-pairing' && id !== 'compaction-beta-header') {
      // The check itself can fail.
      expect(rule.check(BAD[id]!, request).length, `${id} flags a bad body`).toBeGreaterThan(0);
    }
  });
});

describe('generated threads keep every rule of every dialect', () => {
  const ids = fc.constantFrom('call_1', 'call_2', 'call_0', 'toolu_01', `long_${'x'.repeat(60)}`);
  const words = fc.constantFrom('Paris?', 'ok', ' ', '\n\n', 'answer ', 'Rome', '');
  const foreignReasoning = fc.constantFrom<Part>(
    { type: 'reasoning', text: 'Let me think.', signature: 'sig_anthropic_1', providerState: { anthropic_messages: { signature: 'sig_anthropic_1' } } },
    { type: 'reasoning', text: 'Summary.', providerState: { openai_responses: { itemId: 'rs_gen', encryptedContent: 'enc_generated_1' } } },
    { type: 'reasoning', text: 'Thought.', providerState: { google_gemini: { thoughtSignature: 'gem_sig_12345' } } },
    { type: 'reasoning', text: '', redacted: true, providerState: { anthropic_messages: { redactedData: 'redacted_1234' } } },
    { type: 'reasoning', text: '  ' },
    { type: 'compaction', text: 'Earlier turns, summarized.', providerState: { anthropic_messages: { type: 'compaction', encryptedContent: 'enc_compact_1' } } },
  );
  const round = fc.record({
    reasoning: fc.option(foreignReasoning, { nil: undefined }),
    text: fc.option(words, { nil: undefined }),
    calls: fc.array(fc.record({ id: ids, tool: fc.constantFrom('get_weather', 'get_time') }), { maxLength: 3 }),
    // Per call: answered in place, missing, late (after the next assistant turn), early (before the call), or with the user's text.
    fate: fc.array(fc.constantFrom('answered', 'missing', 'late', 'early', 'with-user'), { minLength: 3, maxLength: 3 }),
    after: fc.option(words, { nil: undefined }),
  });
  const thread = fc.tuple(fc.array(round, { minLength: 1, maxLength: 4 }), fc.constantFrom('Start', 'welcome', '  ')).map(([rounds, first]) => {
    // Some threads open with the assistant (a welcome message) or with a whitespace-only question.
    const messages: Message[] = [first === 'welcome' ? msg('assistant', text('Welcome!')) : user(first)];
    let late: Part[] = [];
    rounds.forEach((r, n) => {
      const parts: Part[] = [];
      const early: Part[] = [];
      const answers: Part[] = [];
      const withUser: Part[] = [];
      const nextLate: Part[] = [];
      // Provider state is per response: a real thread never repeats an item id or a signature.
      if (r.reasoning) parts.push(JSON.parse(JSON.stringify(r.reasoning).replace(/(rs_gen|_1234|_1\b|_12345)/g, `$1_${n}`)) as Part);
      if (r.text !== undefined) parts.push(text(r.text));
      r.calls.forEach((c, i) => {
        const res = result(c.id, `result ${n}.${i}`, c.tool);
        const fate = r.fate[i];
        if (fate === 'answered') answers.push(res);
        else if (fate === 'late') nextLate.push(res);
        else if (fate === 'early') early.push(res);
        else if (fate === 'with-user') withUser.push(res);
        parts.push(call(c.id, c.tool, {}));
      });
      messages.push(msg('assistant', ...early, ...parts));
      if (late.length) messages.push(msg('tool', ...late));
      late = nextLate;
      if (answers.length) messages.push(msg('tool', ...answers));
      if (r.after !== undefined || withUser.length) messages.push(msg('user', ...withUser, ...(r.after === undefined ? [] : [text(r.after)])));
    });
    if (late.length) messages.push(msg('tool', ...late));
    return messages;
  });
  const settings = fc.record({
    thinking: fc.constantFrom<ModelRequest['thinking']>(undefined, false, { effort: 'low' }, { budgetTokens: 3000 }),
    toolChoice: fc.constantFrom<ModelRequest['toolChoice']>(undefined, 'auto', 'required', { type: 'tool', name: 'get_weather' }),
    temperature: fc.option(fc.constantFrom(0, 0.7), { nil: undefined }),
    topP: fc.option(fc.constantFrom(0.5, 0.97), { nil: undefined }),
    withTools: fc.boolean(),
    output: fc.boolean(),
  });

  it.each(DIALECT_IDS)('%s', (target) => {
    fc.assert(
      fc.property(thread, settings, (messages, s) => {
        const usesTools = messages.some((m) => m.parts.some((p) => p.type === 'tool-call'));
        const request: ModelRequest = { model: target === 'google_gemini' ? 'gemini-3-pro-preview' : modelFor(target), messages };
        if (s.withTools || usesTools) request.tools = TOOLS;
        if (s.thinking !== undefined) request.thinking = s.thinking;
        if (s.toolChoice !== undefined) request.toolChoice = s.toolChoice;
        if (s.temperature !== undefined) request.temperature = s.temperature;
        if (s.topP !== undefined) request.topP = s.topP;
        if (s.output) request.output = { type: 'json', schema: { type: 'object', properties: { answer: { type: 'string' } } } };
        const body = getDialect(target).encodeRequest(request) as Json;
        const problems = tableViolations(target, body, request);
        if (problems.length) throw new Error(`${problems.join('\n')}\n${JSON.stringify(body).slice(0, 2000)}`);
      }),
      { numRuns: 40, seed: 14 },
    );
  });
});
