import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectResponse, type Message } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { anthropicReasoning, anthropicRedactedReasoning, anthropicServerSearch, answered, checkedEncoder, files, msg, plainTurn, text, user } from '../../test/requests.ts';
import { OPENAI_SCHEMA, validateAgainst } from '../../test/schemas.ts';
import { decodeDialectText as decodeText } from '../decode-stream.ts';
import { MISSING_TOOL_RESULT } from '../shared/tool-pairs.ts';
import { openaiResponses } from './index.ts';

const FIXTURES = join(import.meta.dirname, '../../test/fixtures/openai_responses');

const encode = checkedEncoder(openaiResponses, 'gpt-4.1', (body) => validateAgainst(OPENAI_SCHEMA, '/components/schemas/CreateResponse', body));

/** The assistant message a recorded stream decodes to. */
async function recorded(name: string): Promise<Message> {
  const response = await collectResponse(decodeText(openaiResponses, readFileSync(join(FIXTURES, name))));
  return response.message;
}

describe('openai_responses encoding', () => {
  it('has the Responses path and always streams', () => {
    expect(openaiResponses.path('gpt-4.1')).toBe('/responses');
    expect(encode({ messages: [user('hi')] }).stream).toBe(true);
  });

  it('encodes a plain turn with the system prompt as instructions', () => {
    const body = encode(plainTurn());
    expect(body).toEqual({
      model: 'gpt-4.1',
      instructions: 'Be brief.\n\nAnswer in French.',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello' }] }],
      max_output_tokens: 256,
      temperature: 0.2,
      top_p: 0.9,
      stream: true,
    });
  });

  it('encodes images and files by URL and by base64 data', () => {
    const body = encode({ messages: [msg('user', text('Compare'), files.jpegUrl, files.pngData, files.pdfData, files.pdfUrl)] });
    expect(body.input[0].content).toEqual([
      { type: 'input_text', text: 'Compare' },
      { type: 'input_image', image_url: 'https://example.com/cat.jpg', detail: 'auto' },
      { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
      { type: 'input_file', filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' },
      { type: 'input_file', file_url: 'https://example.com/a.pdf' },
    ]);
  });

  it('encodes a two-step tool loop with call_id pairing and tool definitions', async () => {
    const assistant = await recorded('pydantic-ai__test_openai_responses_stream.i0.sse');
    const body = encode({
      messages: [
        user('Capital of France?'),
        assistant,
        msg('tool', { type: 'tool-result', toolCallId: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', output: { capital: 'Paris' } }),
      ],
      tools: [
        { name: 'get_capital', description: 'Capital of a country', inputSchema: { type: 'object', properties: { country: { type: 'string' } } } },
        { name: 'strict_tool', inputSchema: { type: 'object', properties: {}, additionalProperties: false }, strict: true },
      ],
      toolChoice: { type: 'tool', name: 'get_capital' },
    });
    expect(body.input.slice(1)).toEqual([
      { type: 'function_call', call_id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', name: 'get_capital', arguments: '{"country":"France"}' },
      { type: 'function_call_output', call_id: 'call_kL0PCQV7M2WMoVX8V8OtYSAL', output: '{"capital":"Paris"}' },
    ]);
    expect(body.tools).toEqual([
      { type: 'function', name: 'get_capital', description: 'Capital of a country', parameters: { type: 'object', properties: { country: { type: 'string' } } }, strict: false },
      // Strict: every property listed in `required` (none here), as strict mode requires.
      { type: 'function', name: 'strict_tool', parameters: { type: 'object', properties: {}, additionalProperties: false, required: [] }, strict: true },
    ]);
    expect(body.tool_choice).toEqual({ type: 'function', name: 'get_capital' });
    expect(encode({ messages: [user('x')], tools: [{ name: 'f', inputSchema: { type: 'object' } }], toolChoice: 'required' }).tool_choice).toBe('required');
    // tool_choice without tools is not sent (the API rejects it).
    expect(encode({ messages: [user('x')], toolChoice: 'required' })).not.toHaveProperty('tool_choice');
  });

  it('asks for strict structured output', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
    const body = encode({ messages: [user('x')], output: { type: 'json', schema, name: 'city answer', description: 'A city' } });
    expect(body.text).toEqual({ format: { type: 'json_schema', name: 'city_answer', schema, strict: true, description: 'A city' } });
  });

  it('passes the prompt cache key', () => {
    expect(encode({ messages: [user('x')], cache: { key: 'tenant-42' } }).prompt_cache_key).toBe('tenant-42');
    expect(encode({ messages: [user('x')], cache: {} })).not.toHaveProperty('prompt_cache_key');
  });

  it('maps thinking settings to reasoning effort with encrypted reasoning', () => {
    expect(encode({ messages: [user('x')], thinking: { effort: 'high' } })).toMatchObject({
      reasoning: { effort: 'high', summary: 'auto' },
      store: false,
      include: ['reasoning.encrypted_content'],
    });
    const efforts = [1024, 4096, 20000, 0].map((budgetTokens) => encode({ messages: [user('x')], thinking: { budgetTokens } }).reasoning.effort);
    expect(efforts).toEqual(['low', 'medium', 'high', 'none']);
    const off = encode({ messages: [user('x')], thinking: false });
    expect(off.reasoning).toEqual({ effort: 'none' });
    expect(off).not.toHaveProperty('include');
    expect(encode({ messages: [user('x')] })).not.toHaveProperty('reasoning');
  });

  it('checks bodies against a schema that can fail', () => {
    expect(validateAgainst(OPENAI_SCHEMA, '/components/schemas/CreateResponse', { model: 'gpt-4.1', input: [{ type: 'function_call', name: 'x' }] })).not.toBe('');
  });

  it('sends a refusal back as refusal content of its message', () => {
    const body = encode({
      messages: answered(
        'x',
        { type: 'reasoning', text: '', redacted: true, providerState: { openai_responses: { itemId: 'rs_1', encryptedContent: 'blob' } } },
        { type: 'text', text: 'No.', providerState: { openai_responses: { itemId: 'msg_1', refusal: true } } },
      ),
    });
    expect(body.input.slice(1)).toEqual([
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'blob' },
      { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'refusal', refusal: 'No.' }] },
    ]);
  });

  it('merges extra last', () => {
    const body = encode({ messages: [user('x')], thinking: { effort: 'low' }, extra: { store: true, service_tier: 'flex' } });
    expect(body.store).toBe(true);
    expect(body.service_tier).toBe('flex');
  });
});

describe('openai_responses encrypted reasoning round trip', () => {
  it('sends reasoning back with its id, encrypted content and every summary part, then the message with its id', async () => {
    const assistant = await recorded('pydantic-ai__test_openai_responses_thinking_part_iter.i0.sse');
    const reasoning = assistant.parts.filter((p) => p.type === 'reasoning');
    const body = encode({ messages: [user('How do I cross the street?'), assistant, user('Thanks')], thinking: { effort: 'medium' } });
    const [, item, answer, next] = body.input;
    const first = reasoning[0]!.providerState!.openai_responses as { itemId: string; encryptedContent: string };
    expect(item).toEqual({
      type: 'reasoning',
      id: first.itemId,
      encrypted_content: first.encryptedContent,
      summary: reasoning.map((p) => ({ type: 'summary_text', text: p.type === 'reasoning' ? p.text : '' })),
    });
    expect(answer).toMatchObject({ type: 'message', role: 'assistant', id: expect.stringMatching(/^msg_/), status: 'completed' });
    expect(answer.content[0]).toMatchObject({ type: 'output_text', annotations: [] });
    expect(next).toEqual({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] });
  });

  it('sends encrypted-only reasoning, then a function call with its item id, then the output', async () => {
    const assistant = await recorded('pydantic-ai__test_openai_responses_streaming_usage.i0.sse');
    const body = encode({
      messages: [user('x'), assistant, msg('tool', { type: 'tool-result', toolCallId: 'call_CWXgs68YprAjp6t0371hiPOI', name: 'final_result', output: 'ok' })],
    });
    expect(body.input.slice(1).map((i: any) => [i.type, i.id ?? i.call_id])).toEqual([
      ['reasoning', 'rs_0050471a34b36ae60068c97bac4dcc819595fd0f80d6b3c405'],
      ['function_call', 'fc_0050471a34b36ae60068c97bf19d9c819590eaf42c0edc1042'],
      ['function_call_output', 'call_CWXgs68YprAjp6t0371hiPOI'],
    ]);
    expect(body.input[1].summary).toEqual([]);
    expect(body.input[1].encrypted_content).toMatch(/^gAAAA/);
  });

  it('sends raw reasoning text back as reasoning content (OpenRouter, DeepSeek)', async () => {
    const assistant = await recorded('pydantic-ai__test_deepseek_responses_text_stream_.i0.sse');
    const body = encode({ messages: [user('x'), assistant, user('y')] });
    expect(body.input[1]).toEqual({
      type: 'reasoning',
      id: 'b594b7e1-3dbb-4b65-b8c2-f4f5aae4ee80',
      summary: [],
      content: [{ type: 'reasoning_text', text: 'We need answer capital of France.' }],
    });
    expect(body.input[2]).toMatchObject({ id: 'f9be6778-cb0b-4264-8d37-24af0349d7ef', phase: 'final_answer' });
  });

  it('re-sends built-in tool items verbatim between the reasoning items', async () => {
    const assistant = await recorded('pydantic-ai__test_openai_responses_model_web_search_tool_stream.i0.sse');
    const body = encode({ messages: [user('Weather in SF?'), assistant, user('And tomorrow?')], thinking: { effort: 'low' } });
    expect(body.input.map((i: any) => i.type)).toEqual(['message', 'reasoning', 'web_search_call', 'reasoning', 'message', 'message']);
    // As returned, minus the non-URL source the documented input schema does not take.
    expect(body.input[2]).toEqual({
      id: 'ws_00a60507bf41223d0068c9d30021d081a0962d80d50c12e317',
      type: 'web_search_call',
      status: 'completed',
      action: { type: 'search', query: 'weather: San Francisco, CA' },
    });
  });

  it('re-sends a server tool search as its call and output items', async () => {
    const assistant = await recorded('pydantic-ai__test_openai_native_tool_search_streaming.i0.sse');
    const body = encode({
      messages: [user('x'), assistant, msg('tool', { type: 'tool-result', toolCallId: 'call_CeXueyTqEJ1rgm84BHSwNPz8', name: 'get_exchange_rate', output: '0.9' })],
    });
    expect(body.input.slice(1).map((i: any) => i.type)).toEqual(['tool_search_call', 'tool_search_output', 'function_call', 'function_call_output']);
    expect(body.input[1]).toMatchObject({ id: 'tsc_060f468708eb0ff90069f3e2f1da248193a424897296815e56', execution: 'server', arguments: { paths: ['get_exchange_rate'] } });
    expect(body.input[3]).toMatchObject({ namespace: 'get_exchange_rate' });
  });
});

describe('openai_responses handoff from other dialects', () => {
  it('ignores foreign state, wraps readable foreign reasoning, drops redacted reasoning and foreign server tools', () => {
    const longId = `toolu_${'x'.repeat(70)}`;
    const body = encode({
      messages: [
        user('Question'),
        msg(
          'assistant',
          anthropicReasoning('Let me think.'),
          anthropicRedactedReasoning(),
          ...anthropicServerSearch('srv_1'),
          { type: 'text', text: 'Checking.', providerState: { anthropic_messages: { citations: [] } } },
          { type: 'tool-call', id: longId, name: 'lookup', input: { q: 1 } },
          { type: 'tool-call', id: 'never_answered', name: 'lookup', input: {} },
        ),
        msg(
          'tool',
          { type: 'tool-result', toolCallId: longId, name: 'lookup', output: 'found' },
          { type: 'tool-result', toolCallId: 'no_such_call', name: 'lookup', output: 'orphan' },
        ),
      ],
    });
    const [, thinking, call, unanswered, output, missing, ...rest] = body.input;
    expect(thinking).toEqual({ type: 'message', role: 'assistant', content: '<thinking>Let me think.</thinking>\n\nChecking.' });
    expect(call).toMatchObject({ type: 'function_call', name: 'lookup', arguments: '{"q":1}' });
    expect(call).not.toHaveProperty('id');
    expect(call.call_id.length).toBeLessThanOrEqual(64);
    expect(output).toEqual({ type: 'function_call_output', call_id: call.call_id, output: 'found' });
    // A call without a result is answered with an error output (repairToolPairs), like in every dialect.
    expect(unanswered).toMatchObject({ type: 'function_call', call_id: 'never_answered' });
    expect(missing).toEqual({ type: 'function_call_output', call_id: 'never_answered', output: MISSING_TOOL_RESULT });
    expect(rest).toEqual([]);
  });

  it('sends own reasoning without encrypted content as thinking text and drops the item ids', () => {
    const body = encode({
      messages: answered(
        'x',
        { type: 'reasoning', text: 'Summary only', providerState: { openai_responses: { itemId: 'rs_9' } } },
        { type: 'text', text: 'Answer', providerState: { openai_responses: { itemId: 'msg_9' } } },
      ),
    });
    expect(body.input[1]).toEqual({ type: 'message', role: 'assistant', content: '<thinking>Summary only</thinking>\n\nAnswer' });
  });
});

describe('openai_responses: every recording sent back as history', () => {
  const names = readdirSync(FIXTURES).sort();
  it.each(names)('%s encodes to a valid next request', async (name) => {
    const assistant = await recorded(name);
    const results: Message = {
      id: 't',
      role: 'tool',
      parts: assistant.parts.flatMap((p) => (p.type === 'tool-call' && !p.providerExecuted ? [{ type: 'tool-result' as const, toolCallId: p.id, name: p.name, output: 'done' }] : [])),
    };
    const body = encode({ messages: [user('first'), assistant, ...(results.parts.length ? [results] : []), user('next')], thinking: { effort: 'low' } });
    // Every call sent has its output, and every server item keeps its id.
    const calls = body.input.filter((i: any) => i.type.endsWith('_call') && i.call_id).map((i: any) => [i.type, i.call_id]);
    const outputs = body.input.filter((i: any) => i.type.endsWith('_output') && i.call_id).map((i: any) => [i.type.replace(/_call_output$|_output$/, '_call'), i.call_id]);
    expect(outputs).toEqual(calls);
    const server = /^(web_search_call|file_search_call|code_interpreter_call|image_generation_call|mcp_call|mcp_list_tools)$/;
    for (const item of body.input) if (server.test(item.type) || item.execution === 'server') expect(item.id).toBeTruthy();
  });
});
