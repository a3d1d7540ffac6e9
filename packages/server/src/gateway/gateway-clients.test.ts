/**
 * The clients people use, at their defaults, through the gateway: the AI SDK's providers and
 * LangChain's chat models, two per API format besides its official SDK (gateway-sdks.test.ts;
 * gateway-clients-agents.test.ts has the third: the OpenAI Agents SDK and LlamaIndex), each to a provider of its own format and of another, streamed
 * and not: text with usage equal to the upstream's, a parallel tool round trip (the results
 * reach the provider paired with their calls), structured output (the AI SDK's `Output.object`
 * with a JSON schema: each provider's response format, or its `json` tool), and an upstream 429
 * as the client's error.
 * Each row is one client as its README shows it; nothing is configured beyond base URL and key.
 */
import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { type AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { ChatGoogleGenerativeAI } from '@langchain/google-genai';
import { ChatOllama } from '@langchain/ollama';
import { ChatOpenAI } from '@langchain/openai';
import type { DialectId } from '@parlance/dialects';
import { generateText, jsonSchema, type LanguageModel, Output, stepCountIs, streamText, tool } from 'ai';
import { createOllama } from 'ollama-ai-provider-v2';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type ClientsGateway,
  FORECAST,
  FORECAST_SCHEMA,
  CLIENT_KEY as KEY,
  lastRequestAt,
  lastResultsAt,
  PAIRED_RESULTS,
  RESULTS,
  startClientsGateway,
  TOOL_SCHEMAS,
  UPSTREAMS,
  USAGE,
} from '../../test/gateway-clients-harness.ts';

vi.setConfig({ testTimeout: 60_000 });

let gateway: ClientsGateway;
let url = '';

beforeAll(async () => {
  gateway = await startClientsGateway();
  url = gateway.url;
}, 60_000);

afterAll(async () => {
  await gateway.close();
});

interface Row {
  client: string;
  format: DialectId;
  ai?: (model: string) => LanguageModel;
  langchain?: (model: string) => BaseChatModel;
}

const ROWS: Row[] = [
  { client: '@ai-sdk/openai .chat()', format: 'openai_completions', ai: (m) => createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY }).chat(m) },
  { client: '@langchain/openai ChatOpenAI', format: 'openai_completions', langchain: (m) => new ChatOpenAI({ model: m, apiKey: KEY, configuration: { baseURL: `${url}/v1` }, maxRetries: 0 }) },
  { client: '@ai-sdk/openai (Responses, store: true)', format: 'openai_responses', ai: (m) => createOpenAI({ baseURL: `${url}/v1`, apiKey: KEY })(m) },
  { client: '@langchain/openai ChatOpenAI (useResponsesApi)', format: 'openai_responses', langchain: (m) => new ChatOpenAI({ model: m, apiKey: KEY, configuration: { baseURL: `${url}/v1` }, useResponsesApi: true, maxRetries: 0 }) },
  { client: '@ai-sdk/anthropic', format: 'anthropic_messages', ai: (m) => createAnthropic({ baseURL: `${url}/v1`, apiKey: KEY })(m) },
  { client: '@langchain/anthropic ChatAnthropic', format: 'anthropic_messages', langchain: (m) => new ChatAnthropic({ model: m, apiKey: KEY, anthropicApiUrl: url, maxRetries: 0 }) },
  { client: '@ai-sdk/google', format: 'google_gemini', ai: (m) => createGoogleGenerativeAI({ baseURL: `${url}/v1beta`, apiKey: KEY })(m) },
  { client: '@langchain/google-genai ChatGoogleGenerativeAI', format: 'google_gemini', langchain: (m) => new ChatGoogleGenerativeAI({ model: m, apiKey: KEY, baseUrl: url, maxRetries: 0 }) },
  { client: 'ollama-ai-provider-v2', format: 'ollama_chat', ai: (m) => createOllama({ baseURL: `${url}/api`, headers: { authorization: `Bearer ${KEY}` } })(m) },
  { client: '@langchain/ollama ChatOllama', format: 'ollama_chat', langchain: (m) => new ChatOllama({ model: m, baseUrl: url, headers: { authorization: `Bearer ${KEY}` } }) },
];

/** What a client read: text, its usage, the tool results the provider got, an error's status. */
interface Seen {
  text: string;
  usage?: { input?: number; output?: number };
}

/**
 * The gateway's model names are no model the AI SDK knows, so the output limit is stated, as a caller
 * must for an unknown model (otherwise @ai-sdk/anthropic picks 4096 and logs an "AI SDK Warning" per call).
 */
const MAX_OUTPUT = 1024;

async function aiText(model: LanguageModel, stream: boolean): Promise<Seen> {
  if (!stream) {
    const result = await generateText({ model, prompt: 'hi', maxOutputTokens: MAX_OUTPUT, maxRetries: 0 });
    return { text: result.text, usage: { input: result.usage.inputTokens, output: result.usage.outputTokens } };
  }
  const result = streamText({ model, prompt: 'hi', maxOutputTokens: MAX_OUTPUT, maxRetries: 0, onError: () => {} });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  const usage = await result.usage;
  return { text, usage: { input: usage.inputTokens, output: usage.outputTokens } };
}

async function aiTools(model: LanguageModel, stream: boolean): Promise<string> {
  const tools = Object.fromEntries(
    Object.entries(TOOL_SCHEMAS).map(([name, schema]) => [name, tool({ description: name, inputSchema: jsonSchema(schema as never), execute: async () => RESULTS[name] })]),
  );
  const options = { model, prompt: 'Weather and time in Paris?', tools, stopWhen: stepCountIs(3), maxOutputTokens: MAX_OUTPUT, maxRetries: 0 };
  if (!stream) return (await generateText(options)).text;
  const result = streamText({ ...options, onError: () => {} });
  let text = '';
  for await (const delta of result.textStream) text += delta;
  return text;
}

function lcText(message: BaseMessage): string {
  return typeof message.content === 'string' ? message.content : message.content.map((part) => (typeof part === 'string' ? part : part.type === 'text' ? (part as { text: string }).text : '')).join('');
}

async function lcTurn(model: BaseChatModel, messages: BaseMessage[], stream: boolean): Promise<AIMessage> {
  if (!stream) return (await model.invoke(messages)) as AIMessage;
  let whole: AIMessage | undefined;
  for await (const chunk of await model.stream(messages)) whole = whole ? (whole as unknown as { concat(c: unknown): AIMessage }).concat(chunk) : (chunk as unknown as AIMessage);
  return whole!;
}

async function lcTools(model: BaseChatModel, stream: boolean): Promise<string> {
  const bound = model.bindTools!(Object.entries(TOOL_SCHEMAS).map(([name, schema]) => ({ type: 'function' as const, function: { name, description: name, parameters: schema } }))) as unknown as BaseChatModel;
  const history: BaseMessage[] = [new HumanMessage('Weather and time in Paris?')];
  const first = await lcTurn(bound, history, stream);
  expect(first.tool_calls?.map((c) => c.name)).toEqual(['weather', 'time']);
  history.push(first);
  for (const call of first.tool_calls ?? []) history.push(new ToolMessage({ content: RESULTS[call.name]!, tool_call_id: call.id ?? '', name: call.name }));
  return lcText(await lcTurn(bound, history, stream));
}

describe.each(ROWS)('$client', (row) => {
  const others = UPSTREAMS.filter((d) => d !== row.format).slice(0, 1);
  describe.each([row.format, ...others])('to a %s provider', (upstream) => {
    for (const stream of [false, true]) {
      const mode = stream ? 'streamed' : 'not streamed';

      it(`${mode}: text with the upstream's usage`, async () => {
        const model = `to-${upstream}`;
        const seen = row.ai ? await aiText(row.ai(model), stream) : await (async () => {
          const message = await lcTurn(row.langchain!(model), [new HumanMessage('hi')], stream);
          return { text: lcText(message), usage: { input: message.usage_metadata?.input_tokens, output: message.usage_metadata?.output_tokens } };
        })();
        expect(seen.text).toBe('Hello there.');
        expect(seen.usage).toEqual({ input: USAGE.inputTokens, output: USAGE.outputTokens });
      });

      it(`${mode}: parallel tool calls, and both results reach the provider paired with their calls`, async () => {
        const model = `to-${upstream}`;
        const text = row.ai ? await aiTools(row.ai(model), stream) : await lcTools(row.langchain!(model), stream);
        expect(text).toContain('18C and sunny');
        expect(text).toContain('14:05');
        expect(lastResultsAt(gateway, upstream)).toEqual(PAIRED_RESULTS);
      });
    }

    if (row.ai) {
      for (const stream of [false, true]) {
        it(`${stream ? 'streamed' : 'not streamed'}: structured output (a JSON schema) reaches the provider and comes back as the object`, async () => {
          const options = { model: row.ai!(`to-${upstream}`), prompt: 'Forecast for Paris?', output: Output.object({ schema: jsonSchema<typeof FORECAST>(FORECAST_SCHEMA as never) }), maxOutputTokens: MAX_OUTPUT, maxRetries: 0 };
          const object = stream ? await streamText({ ...options, onError: () => {} }).output : (await generateText(options)).output;
          expect(object).toEqual(FORECAST);
          // The schema reached the provider: as its response format, or as the client's one `json` tool.
          const sent = lastRequestAt(gateway, upstream);
          expect(JSON.stringify(sent.output?.schema ?? sent.tools?.find((t) => t.name === 'json')?.inputSchema)).toContain('celsius');
        });
      }
    }

    it('an upstream 429 is the client error with status 429', async () => {
      const model = `limited-${upstream}`;
      const error = row.ai
        ? await generateText({ model: row.ai(model), prompt: 'hi', maxOutputTokens: MAX_OUTPUT, maxRetries: 0 }).catch((e: unknown) => e)
        : await row.langchain!(model).invoke([new HumanMessage('hi')]).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Error);
      const status = (error as { statusCode?: number; status?: number; lc_error_code?: string }).statusCode ?? (error as { status?: number }).status;
      if (status !== undefined) expect(status).toBe(429);
      else expect(String((error as Error).message)).toMatch(/429|rate|slow down/i);
    });
  });
});
