/**
 * Each wire encoder is checked against the real dialect decoder: a script encoded
 * to the provider's bytes and decoded back must give the script's text, reasoning,
 * tool calls, finish reason and usage, whole or cut into small byte chunks.
 */
import { DIALECT_IDS, decodeStream, decodeText, type DialectId } from '@parlance/dialects';
import { collectResponse, type Event, type Response } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import type { ScriptedTurn } from '../script.ts';
import { encodeEvents, encodeTurn, wireContentType, wireHttpError } from './encode.ts';

/** Dialects whose wire format carries tool-call ids (Gemini and Ollama send none; the decoder makes them up). */
const KEEPS_IDS: ReadonlySet<DialectId> = new Set(['openai_completions', 'openai_responses', 'anthropic_messages']);
/** Dialects whose error events say what kind of error it was (Ollama sends only a message). */
const TYPED_ERRORS: ReadonlySet<DialectId> = new Set(['openai_completions', 'openai_responses', 'anthropic_messages', 'google_gemini']);

function partsOf(response: Response, type: 'text' | 'reasoning'): string {
  return response.message.parts.map((part) => (part.type === type ? part.text : '')).join('');
}

function streamOf(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(controller) {
      if (at >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(at, at + size));
      at += size;
    },
  });
}

async function decodeChunked(dialect: DialectId, body: string, size: number): Promise<Event[]> {
  const events: Event[] = [];
  for await (const event of decodeStream(dialect, streamOf(body, size))) events.push(event);
  return events;
}

const thinking: ScriptedTurn = {
  reasoning: 'The user greets me. Answer kindly.',
  reasoningSignature: 'c2lnbmF0dXJl',
  text: 'Hello, wörld! 👋 Ça va? 你好',
  usage: { inputTokens: 21, outputTokens: 40, reasoningTokens: 12 },
};

const tools: ScriptedTurn = {
  text: 'Let me look that up.',
  toolCalls: [
    { id: 'call_weather', name: 'get_weather', input: { city: 'Zürich', days: 3, units: null } },
    { id: 'call_search', name: 'search', input: { query: 'umbrellas "cheap"', filters: { tags: ['rain', 'wind'], max: 2.5, open: true } } },
  ],
  usage: { inputTokens: 50, outputTokens: 25 },
};

describe.each(DIALECT_IDS)('wire encoder: %s', (dialect) => {
  it('round-trips text, reasoning, finish reason and usage through the real decoder', async () => {
    const response = await collectResponse(decodeText(dialect, encodeTurn(dialect, thinking)));
    expect(response.error).toBeUndefined();
    expect(partsOf(response, 'text')).toBe(thinking.text);
    expect(partsOf(response, 'reasoning')).toBe(thinking.reasoning);
    expect(response.finishReason).toBe('stop');
    expect(response.usage.inputTokens).toBe(21);
    expect(response.usage.outputTokens).toBe(40);
  });

  it('round-trips tool calls with their inputs', async () => {
    const response = await collectResponse(decodeText(dialect, encodeTurn(dialect, tools)));
    expect(response.finishReason).toBe('tool-calls');
    expect(partsOf(response, 'text')).toBe(tools.text);
    const calls = response.message.parts.filter((part) => part.type === 'tool-call');
    expect(calls.map((call) => ({ name: call.name, input: call.input }))).toEqual(
      tools.toolCalls!.map((call) => ({ name: call.name, input: call.input })),
    );
    if (KEEPS_IDS.has(dialect)) expect(calls.map((call) => call.id)).toEqual(['call_weather', 'call_search']);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });

  it('decodes the same when the body arrives in 5-byte chunks (multibyte characters split)', async () => {
    for (const turn of [thinking, tools]) {
      const body = encodeTurn(dialect, turn);
      expect(await decodeChunked(dialect, body, 5)).toEqual(decodeText(dialect, body));
    }
  });

  it('keeps the text deltas the script gives', () => {
    const deltas = ['Hel', 'lo', ' there', '!'];
    const events = decodeText(dialect, encodeTurn(dialect, { text: deltas }));
    expect(events.flatMap((event) => (event.type === 'text-delta' ? [event.delta] : []))).toEqual(deltas);
  });

  it('reports a length stop', async () => {
    const response = await collectResponse(decodeText(dialect, encodeTurn(dialect, { text: 'It was a dark and', finishReason: 'length' })));
    expect(response.finishReason).toBe('length');
    expect(partsOf(response, 'text')).toBe('It was a dark and');
  });

  it('reports a mid-stream provider error after keeping what arrived', async () => {
    // message-start, text-start and three deltas arrive before the failure.
    const turn: ScriptedTurn = { text: ['one ', 'two ', 'three ', 'four'], error: { code: 'overloaded', message: 'Overloaded', afterEvents: 5 } };
    const response = await collectResponse(decodeText(dialect, encodeTurn(dialect, turn)));
    expect(response.finishReason).toBe('error');
    expect(partsOf(response, 'text')).toBe('one two three ');
    expect(response.error).toBeDefined();
    if (TYPED_ERRORS.has(dialect)) expect(response.error?.code).toBe('overloaded');
  });

  it('builds the provider HTTP error body, with the status a client maps back to the code', () => {
    const error = wireHttpError(dialect, { code: 'rate_limited', message: 'Slow down' });
    expect(error.status).toBe(429);
    expect(error.headers['content-type']).toMatch(/^application\/json/);
    expect(error.body).toContain('Slow down');
    expect(wireHttpError(dialect, { code: 'authentication', message: 'Bad key', status: 401 }).status).toBe(401);
  });

  it('names its content type', () => {
    expect(wireContentType(dialect)).toBe(dialect === 'ollama_chat' ? 'application/x-ndjson' : 'text/event-stream');
  });
});

describe('wire formats as the providers send them', () => {
  function sseFrames(body: string) {
    return body
      .split(/\r?\n\r?\n/)
      .filter((frame) => frame.trim())
      .map((frame) => {
        const lines = frame.split(/\r?\n/);
        const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
        const data = lines.find((line) => line.startsWith('data: '))!.slice(6);
        return { event, data: data === '[DONE]' ? data : JSON.parse(data) };
      });
  }

  it('names every Anthropic and Responses frame after its payload type', () => {
    for (const dialect of ['anthropic_messages', 'openai_responses'] as const) {
      for (const frame of sseFrames(encodeTurn(dialect, tools))) expect(frame.event).toBe(frame.data.type);
    }
  });

  it('numbers Responses events in sequence', () => {
    const numbers = sseFrames(encodeTurn('openai_responses', thinking)).map((frame) => frame.data.sequence_number);
    expect(numbers).toEqual(numbers.map((_, index) => index));
  });

  it('ends Chat Completions with a usage chunk and [DONE]', () => {
    const frames = sseFrames(encodeTurn('openai_completions', tools));
    expect(frames.at(-1)?.data).toBe('[DONE]');
    expect(frames.at(-2)?.data).toMatchObject({ choices: [], usage: { prompt_tokens: 50, completion_tokens: 25, total_tokens: 75 } });
  });

  it('keeps the reasoning signature where the provider carries it', async () => {
    for (const dialect of ['anthropic_messages', 'google_gemini'] as const) {
      const response = await collectResponse(decodeText(dialect, encodeTurn(dialect, thinking)));
      const reasoning = response.message.parts.find((part) => part.type === 'reasoning');
      expect(reasoning?.type === 'reasoning' && reasoning.signature).toBe(thinking.reasoningSignature);
    }
    const responses = await collectResponse(decodeText('openai_responses', encodeTurn('openai_responses', thinking)));
    expect(JSON.stringify(responses.message.parts[0]?.providerState)).toContain(thinking.reasoningSignature);
  });

  it('streams Gemini function-call arguments as partialArgs when asked, decoding to the same input', async () => {
    const input = { note: 'a long argument that arrives in pieces', count: 2, tags: ['x', 'y'], ok: false };
    const turn: ScriptedTurn = { toolCalls: [{ name: 'save', input }] };
    const body = encodeTurn('google_gemini', turn, { geminiArgumentPieceLength: 4 });
    expect(body).toContain('"partialArgs"');
    const response = await collectResponse(decodeText('google_gemini', body));
    const call = response.message.parts.find((part) => part.type === 'tool-call');
    expect(call?.type === 'tool-call' && call.input).toEqual(input);
  });

  it('encodes an event list that streams one tool call in many fragments', async () => {
    const fragments = ['{"pa', 'th": "a/', 'b.txt", "lines"', ': [1, 2', ']}'];
    const events: Event[] = [
      { type: 'message-start' },
      { type: 'tool-call-start', id: 'call_1', name: 'read' },
      ...fragments.map((delta): Event => ({ type: 'tool-call-delta', id: 'call_1', delta })),
      { type: 'tool-call-end', id: 'call_1', input: { path: 'a/b.txt', lines: [1, 2] } },
      { type: 'finish', finishReason: 'tool-calls', usage: {} },
    ];
    for (const dialect of ['anthropic_messages', 'openai_completions', 'openai_responses'] as const) {
      const decoded = decodeText(dialect, encodeEvents(dialect, events));
      expect(decoded.flatMap((event) => (event.type === 'tool-call-delta' ? [event.delta] : []))).toEqual(fragments);
      expect(decoded.find((event) => event.type === 'tool-call-end')).toMatchObject({ input: { path: 'a/b.txt', lines: [1, 2] } });
    }
  });
});
