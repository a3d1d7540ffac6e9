/**
 * The third widely used client per API format, at its latest version and defaults, through the
 * gateway (gateway-sdks.test.ts has the official SDKs, gateway-clients.test.ts the AI SDK and
 * LangChain): the OpenAI Agents SDK for Chat Completions and Responses, LlamaIndex's LLMs for
 * Anthropic Messages, Gemini and Ollama. Each to a provider of its own format and of another,
 * streamed and not: text with usage equal to the upstream's (as the client shows it: the Agents
 * SDK's run usage, LlamaIndex's `raw` provider body), a parallel tool round trip whose results
 * reach the provider paired with their calls, structured output where the client has it (the
 * Agents SDK's `outputType`, LlamaIndex Ollama's `responseFormat`), and an upstream 429 as the
 * client's error with status 429. Nothing is configured beyond base URL and key (and no retries).
 */

import { Anthropic, AnthropicSession } from '@llamaindex/anthropic';
import type { ChatMessage, MessageContent, PartialToolCall, ToolCall, ToolCallLLM } from '@llamaindex/core/llms';
import { Gemini } from '@llamaindex/google';
import { Ollama } from '@llamaindex/ollama';
import { Agent, type Model, OpenAIChatCompletionsModel, OpenAIResponsesModel, run, setTracingDisabled, tool } from '@openai/agents';
import type { DialectId } from '@parlance/dialects';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type ClientsGateway,
  FORECAST,
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
// The Agents SDK exports traces to api.openai.com by default; tests talk to 127.0.0.1 only.
setTracingDisabled(true);

let gateway: ClientsGateway;

beforeAll(async () => {
  gateway = await startClientsGateway();
}, 60_000);

afterAll(async () => {
  await gateway.close();
});

const Forecast = z.object({ city: z.string(), celsius: z.number() });

/** What a client read on a plain turn. */
interface Seen {
  text: string;
  usage: { input?: number; output?: number };
}

/** One client: how it answers a plain turn, runs a tool round trip, returns an object, fails. */
interface Row {
  client: string;
  format: DialectId;
  text(model: string, stream: boolean): Promise<Seen>;
  tools(model: string, stream: boolean): Promise<string>;
  structured?(model: string, stream: boolean): Promise<unknown>;
  quirks?: LlamaQuirks;
  fail(model: string): Promise<unknown>;
}

// --- The OpenAI Agents SDK: an Agent run, with the model on one of its two OpenAI APIs. ---

function agentsRow(client: string, format: DialectId, toModel: (openai: OpenAI, model: string) => Model): Row {
  const model = (name: string) => toModel(new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: KEY, maxRetries: 0 }), name);
  const tools = Object.entries(TOOL_SCHEMAS).map(([name, schema]) =>
    tool({ name, description: name, parameters: schema as never, strict: true, execute: async () => RESULTS[name]! }),
  );
  async function go(agent: Agent<any, any>, input: string, stream: boolean) {
    if (!stream) return run(agent, input);
    const result = await run(agent, input, { stream: true });
    for await (const _ of result.toTextStream()) {
      // Read the stream to its end, as an app showing the text would.
    }
    await result.completed;
    return result;
  }
  return {
    client,
    format,
    text: async (name, stream) => {
      const result = await go(new Agent({ name: 'a', instructions: 'Be brief.', model: model(name) }) as never, 'hi', stream);
      const usage = result.state.usage;
      return { text: String(result.finalOutput), usage: { input: usage.inputTokens, output: usage.outputTokens } };
    },
    tools: async (name, stream) => String((await go(new Agent({ name: 'a', model: model(name), tools }) as never, 'Weather and time in Paris?', stream)).finalOutput),
    structured: async (name, stream) => (await go(new Agent({ name: 'a', model: model(name), outputType: Forecast }) as never, 'Forecast for Paris?', stream)).finalOutput,
    fail: (name) => run(new Agent({ name: 'a', model: model(name) }), 'hi').catch((e: unknown) => e),
  };
}

// --- LlamaIndex: an LLM's `chat`, with the tool loop written as its docs show. ---

/** The usage the provider's own body or stream reported, as LlamaIndex hands it over in `raw`. */
function rawUsage(format: DialectId, raws: unknown[]): Seen['usage'] {
  const usage: Seen['usage'] = {};
  for (const raw of raws as Record<string, any>[]) {
    if (format === 'anthropic_messages') {
      const u = raw.usage ?? raw.message?.usage;
      if (u?.input_tokens) usage.input = u.input_tokens;
      if (u?.output_tokens) usage.output = u.output_tokens;
    } else if (format === 'google_gemini') {
      if (raw.usageMetadata) usage.input = raw.usageMetadata.promptTokenCount;
      if (raw.usageMetadata) usage.output = raw.usageMetadata.candidatesTokenCount;
    } else if (raw.done) {
      usage.input = raw.prompt_eval_count;
      usage.output = raw.eval_count;
    }
  }
  return usage;
}

/** A LlamaIndex message's text: a string, or the text parts of a content array. */
function contentText(content: MessageContent): string {
  return typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

interface Turn {
  text: string;
  toolCalls: ToolCall[];
  raws: unknown[];
}

async function llamaTurn(llm: ToolCallLLM, messages: ChatMessage[], stream: boolean, tools?: Parameters<ToolCallLLM['chat']>[0]['tools']): Promise<Turn> {
  if (!stream) {
    const response = await llm.chat({ messages, tools });
    const options = response.message.options as { toolCall?: ToolCall[] } | undefined;
    return { text: contentText(response.message.content), toolCalls: options?.toolCall ?? [], raws: [response.raw] };
  }
  const calls = new Map<string, ToolCall | PartialToolCall>();
  const turn: Turn = { text: '', toolCalls: [], raws: [] };
  for await (const chunk of await llm.chat({ messages, tools, stream: true })) {
    turn.text += chunk.delta;
    turn.raws.push(chunk.raw);
    for (const call of (chunk.options as { toolCall?: (ToolCall | PartialToolCall)[] } | undefined)?.toolCall ?? []) calls.set(call.id, { ...call });
  }
  turn.toolCalls = [...calls.values()].map((call) => ({ ...call, input: typeof call.input === 'string' ? JSON.parse(call.input || '{}') : call.input }));
  return turn;
}

interface LlamaQuirks {
  /** The LLM has `responseFormat` (structured output). */
  structured?: boolean;
  /** Its stream hands over no event that carries usage (LlamaIndex's Anthropic yields text and tool events only). */
  noStreamUsage?: boolean;
  /** It drops the assistant's tool calls from the history it sends, and its results carry neither id nor name. */
  dropsToolCalls?: boolean;
}

function llamaRow(client: string, format: DialectId, create: (model: string) => ToolCallLLM, quirks: LlamaQuirks = {}): Row {
  const tools = Object.entries(TOOL_SCHEMAS).map(([name, parameters]) => ({ metadata: { name, description: name, parameters: parameters as never } }));
  return {
    client,
    format,
    text: async (model, stream) => {
      const turn = await llamaTurn(create(model), [{ role: 'user', content: 'hi' }], stream);
      return { text: turn.text, usage: rawUsage(format, turn.raws) };
    },
    tools: async (model, stream) => {
      const llm = create(model);
      const history: ChatMessage[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
      const first = await llamaTurn(llm, history, stream, tools);
      expect(first.toolCalls.map((c) => c.name)).toEqual(['weather', 'time']);
      history.push({ role: 'assistant', content: first.text, options: { toolCall: first.toolCalls } });
      for (const call of first.toolCalls) history.push({ role: 'user', content: RESULTS[call.name]!, options: { toolResult: { id: call.id, result: RESULTS[call.name]!, isError: false } } });
      return (await llamaTurn(llm, history, stream, tools)).text;
    },
    quirks,
    structured: quirks.structured
      ? async (model, stream) => {
          const llm = create(model);
          const messages: ChatMessage[] = [{ role: 'user', content: 'Forecast for Paris?' }];
          if (!stream) return JSON.parse(String((await llm.chat({ messages, responseFormat: Forecast })).message.content));
          let text = '';
          for await (const chunk of await llm.chat({ messages, responseFormat: Forecast, stream: true })) text += chunk.delta;
          return JSON.parse(text);
        }
      : undefined,
    fail: (model) => create(model).chat({ messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e),
  };
}

const ROWS: Row[] = [
  agentsRow('@openai/agents (Chat Completions model)', 'openai_completions', (openai, m) => new OpenAIChatCompletionsModel(openai as never, m)),
  agentsRow('@openai/agents (Responses model, its default)', 'openai_responses', (openai, m) => new OpenAIResponsesModel(openai as never, m)),
  llamaRow('@llamaindex/anthropic Anthropic', 'anthropic_messages', (m) => new Anthropic({ model: m, session: new AnthropicSession({ apiKey: KEY, baseURL: gateway.url, maxRetries: 0 }) }), {
    noStreamUsage: true,
  }),
  llamaRow('@llamaindex/google Gemini', 'google_gemini', (m) => new Gemini({ model: m as never, apiKey: KEY, httpOptions: { baseUrl: gateway.url } })),
  llamaRow('@llamaindex/ollama Ollama', 'ollama_chat', (m) => new Ollama({ model: m, config: { host: gateway.url, headers: { authorization: `Bearer ${KEY}` } } }), {
    structured: true,
    dropsToolCalls: true,
  }),
];

describe.each(ROWS)('$client', (row) => {
  const other = UPSTREAMS.find((d) => d !== row.format)!;
  describe.each([row.format, other])('to a %s provider', (upstream) => {
    for (const stream of [false, true]) {
      const mode = stream ? 'streamed' : 'not streamed';

      it(`${mode}: text with the upstream's usage`, async () => {
        const seen = await row.text(`to-${upstream}`, stream);
        expect(seen.text).toBe('Hello there.');
        expect(seen.usage).toEqual(stream && row.quirks?.noStreamUsage ? {} : { input: USAGE.inputTokens, output: USAGE.outputTokens });
      });

      if (row.quirks?.dropsToolCalls) {
        // The client sends results that answer no call in the history it sends. Ollama itself renders them
        // into the prompt; the gateway cannot pair them with anything, and by its rule (never a synthetic
        // pairing) answers 400 in Ollama's format, naming why.
        it(`${mode}: tool results the client sent without their calls are a 400 in the caller's format`, async () => {
          const error = await row.tools(`to-${upstream}`, stream).catch((e: unknown) => e);
          expect(error).toMatchObject({ status_code: 400, error: expect.stringMatching(/answers no tool call/) });
        });
        continue;
      }

      it(`${mode}: parallel tool calls, and both results reach the provider paired with their calls`, async () => {
        const text = await row.tools(`to-${upstream}`, stream);
        expect(text).toContain('18C and sunny');
        expect(text).toContain('14:05');
        expect(lastResultsAt(gateway, upstream)).toEqual(PAIRED_RESULTS);
      });

      if (row.structured) {
        it(`${mode}: structured output (a JSON schema) reaches the provider and comes back as the object`, async () => {
          expect(await row.structured!(`to-${upstream}`, stream)).toEqual(FORECAST);
          expect(JSON.stringify(lastRequestAt(gateway, upstream).output?.schema)).toContain('celsius');
        });
      }
    }

    it('an upstream 429 is the client error with status 429', async () => {
      const error = await row.fail(`limited-${upstream}`);
      expect(error).toBeInstanceOf(Error);
      // openai's APIError and Anthropic's carry `status`; ollama's ResponseError `status_code`.
      const status = (error as { status?: number }).status ?? (error as { status_code?: number }).status_code;
      expect(status).toBe(429);
    });
  });
});
