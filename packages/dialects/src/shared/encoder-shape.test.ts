/**
 * Our response encoders write what the providers write, checked at the structure level against the
 * real recordings in shared/fixtures (not only against the published schemas, which mark fields
 * required that the APIs leave out). Every recording is decoded and encoded again by our encoder,
 * streamed and as one body; then, per dialect and per kind of event:
 * - every field we write (two levels deep) is one a recording of that kind has, with a JSON type
 *   (null included) the recordings use for it: no invented fields, no `null` where the API omits;
 * - every field that every recording of that kind has, we write too;
 * - for recordings of a plain answer (text, reasoning, client tool calls), the order of event kinds
 *   is the recording's (runs of one kind counted once: delta counts differ).
 * Values may differ. A whole body is compared through the event that carries it in a stream
 * (`replayBody`: Anthropic's `message_start`, Responses' final event, the one chunk of the others).
 */
import { collectResponse, type Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { loadFixtures } from '../../test/conformance.ts';
import { decodeText, getDialect } from '../registry.ts';
import { DIALECT_IDS, type DialectId } from '../types.ts';
import { encodeResponseStream } from './response-encoding.ts';

type Json = Record<string, any>;
interface Payload {
  event?: string | undefined;
  data: any;
}

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/** Field paths (two levels) and their JSON types. */
function fields(value: unknown, prefix = '', depth = 2, out = new Map<string, string>()): Map<string, string> {
  if (typeOf(value) !== 'object') return out;
  for (const [key, item] of Object.entries(value as Json)) {
    const path = prefix + key;
    out.set(path, typeOf(item));
    if (depth > 1) fields(item, `${path}.`, depth - 1, out);
  }
  return out;
}

const nonEmpty = (value: unknown) => value !== undefined && value !== null && value !== '' && !(Array.isArray(value) && value.length === 0);

/** The kind of a payload: its type (and block or item type), or for untyped chunks what they carry. */
function kindOf(dialect: DialectId, data: Json): string {
  switch (dialect) {
    case 'anthropic_messages':
      if (data.type === 'content_block_start') return `content_block_start:${data.content_block?.type}`;
      if (data.type === 'content_block_delta') return `content_block_delta:${data.delta?.type}`;
      return String(data.type);
    case 'openai_responses':
      if (data.type === 'response.output_item.added' || data.type === 'response.output_item.done') return `${data.type}:${data.item?.type}`;
      return String(data.type);
    case 'openai_completions': {
      const choice = data.choices?.[0];
      const delta = choice?.delta ?? {};
      const carried = ['content', 'reasoning_content', 'reasoning', 'tool_calls'].filter((key) => nonEmpty(delta[key]));
      if (nonEmpty(choice?.finish_reason)) carried.push('finish');
      if (nonEmpty(data.usage)) carried.push('usage');
      return `chunk:${carried.join('+') || 'role'}`;
    }
    case 'google_gemini': {
      const candidate = data.candidates?.[0];
      const parts: Json[] = candidate?.content?.parts ?? [];
      const carried: string[] = [...new Set(parts.map((p) => (p.functionCall ? 'functionCall' : p.thought ? 'thought' : 'text')))];
      if (candidate?.finishReason) carried.push('finish');
      return `chunk:${carried.join('+')}`;
    }
    case 'ollama_chat':
      return data.done ? 'done' : `message:${['thinking', 'content', 'tool_calls'].filter((key) => nonEmpty(data.message?.[key])).join('+')}`;
  }
}

/** What a field of that kind may look like, from every recording of the dialect. */
interface KindShape {
  types: Map<string, Set<string>>;
  always: Set<string>;
}

function learn(dialect: DialectId, payloads: Payload[], into: Map<string, KindShape>): void {
  for (const { data } of payloads) {
    if (typeOf(data) !== 'object' || data.error !== undefined) continue;
    const kind = kindOf(dialect, data);
    const seen = fields(data);
    const shape = into.get(kind);
    if (!shape) {
      into.set(kind, { types: new Map([...seen].map(([path, type]) => [path, new Set([type])])), always: new Set(seen.keys()) });
      continue;
    }
    for (const [path, type] of seen) shape.types.set(path, (shape.types.get(path) ?? new Set()).add(type));
    for (const path of shape.always) if (!seen.has(path)) shape.always.delete(path);
  }
}

/** How our payload differs from the recorded shape of its kind ([] when it does not). */
function differences(dialect: DialectId, data: Json, shapes: Map<string, KindShape>): string[] {
  const kind = kindOf(dialect, data);
  const shape = shapes.get(kind);
  if (!shape) return [];
  const ours = fields(data);
  const out: string[] = [];
  for (const [path, type] of ours) {
    const recorded = shape.types.get(path);
    if (!recorded) out.push(`${kind}: ${path} (${type}) is in no recording`);
    else if (!recorded.has(type)) out.push(`${kind}: ${path} is ${type}, recorded as ${[...recorded].join('|')}`);
  }
  for (const path of shape.always) if (!ours.has(path)) out.push(`${kind}: ${path} is in every recording, not in ours`);
  return out;
}

function parseFrames(dialect: DialectId, text: string): Payload[] {
  if (dialect === 'ollama_chat') return text.split('\n').filter((line) => line.trim() !== '').map((line) => ({ data: JSON.parse(line) }));
  const out: Payload[] = [];
  for (const frame of text.split(/\r?\n\r?\n/)) {
    let event: string | undefined;
    const data: string[] = [];
    for (const line of frame.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (data.length > 0 && data.join('\n') !== '[DONE]') out.push({ event, data: JSON.parse(data.join('\n')) });
  }
  return out;
}

/** A plain answer: text, reasoning and client tool calls only (what every encoder can write back). */
function plain(events: Event[]): boolean {
  return events.every(
    (e) =>
      !['source', 'file', 'tool-result', 'compaction', 'error'].includes(e.type) &&
      !(e.type === 'tool-call-start' && e.providerExecuted) &&
      !(e.type === 'finish' && e.finishReason === 'error'),
  );
}

/** Runs of one kind counted once; Anthropic's `ping` left out ("any number of ping events", anywhere: https://docs.anthropic.com/en/docs/build-with-claude/streaming#ping-events). */
const collapse = (kinds: string[]) => kinds.filter((kind) => kind !== 'ping').filter((kind, i, all) => kind !== all[i - 1]);

/**
 * Where our encoders still differ from the recordings, each with why it is left so. Every entry must
 * still be seen (the last test), so fixing one shrinks this list; anything not listed fails.
 */
const KNOWN: Record<DialectId, { difference: RegExp; why: string }[]> = {
  openai_completions: [],
  openai_responses: [
    { difference: /response\.user is in every recording/, why: 'recorded as null, but the published schema allows only a string there (testing/test/response-schemas.test.ts)' },
    { difference: /obfuscation is in every recording/, why: 'random padding against length side channels; nothing reads it' },
    { difference: /function_call_arguments\.done: name \(string\) is in no recording/, why: 'the published schema has `name`; the recordings predate it' },
  ],
  anthropic_messages: [
    { difference: /^body: message_start: message\.stop_reason is string, recorded as null/, why: "a whole body has its stop reason; a stream's message_start cannot have it yet" },
    {
      difference: /(stop_details|container|output_tokens_details|server_tool_use).*(in no recording|is null, recorded as object)/,
      why: 'the published schema marks these required (nullable) and testing/test/response-schemas.test.ts validates against it; the recordings omit them when empty',
    },
  ],
  google_gemini: [
    {
      difference: /usageMetadata.* is in every recording, not in ours/,
      why: 'Gemini repeats the running usage on every chunk; ours reports it once, on the last (clients read the last)',
    },
    { difference: /createTime is in every recording/, why: 'a Vertex AI field (the recordings are partly Vertex); the Gemini API sends none' },
  ],
  ollama_chat: [{ difference: /_duration is in every recording, not in ours/, why: 'server timings the gateway does not have; zeros would be made-up numbers' }],
};

/**
 * Chat Completions recordings come from compatible vendors (Groq, Moonshot, Z.ai, Alibaba, OpenRouter),
 * whose chunk order differs from OpenAI's and from one another (the finish with the usage, no role
 * chunk, reasoning under `reasoning`): ours writes OpenAI's order (role, content, finish, then the
 * usage chunk), so only its fields are compared.
 */
const SEQUENCE_CHECKED = new Set<DialectId>(['openai_responses', 'anthropic_messages', 'google_gemini', 'ollama_chat']);

/** Recordings whose event order ours does not reproduce yet, and why. */
const KNOWN_ORDER: Record<string, string> = {
  'pydantic-ai__test_background_mode_streaming_vcr.i0.sse': 'background mode: `response.queued` is not written (the gateway never queues)',
  'pydantic-ai__test_background_mode_streaming_starting_after_vcr.i1.sse': 'background mode, resumed: starts at `response.queued`',
  'pydantic-ai__test_deepseek_responses_function_tool_stream_.i0.sse': 'raw reasoning text (`reasoning_text.*` in a content part) is written as a summary',
  'pydantic-ai__test_deepseek_responses_text_stream_.i0.sse': 'raw reasoning text is written as a summary',
  'pydantic-ai__test_openai_responses_raw_cot_stream_openrouter.i0.sse': 'raw reasoning text is written as a summary',
  'pydantic-ai__test_openai_client_tool_search_streaming.i0.sse': 'a client tool_search_call item is written as a function call',
  'pydantic-ai__test_openai_responses_moderation_stream.i0.sse': 'encrypted-only reasoning still gets an empty summary part',
  'pydantic-ai__test_openai_responses_phase_streamed_on_part_start.i0.sse': 'encrypted-only reasoning still gets an empty summary part',
  'pydantic-ai__test_openai_responses_streaming_usage.i0.sse': 'encrypted-only reasoning still gets an empty summary part',
  'pydantic-ai__test_openai_responses_thinking_part_iter.i0.sse': 'the summary parts of one reasoning item are streamed as one item each (the whole body merges them)',
  'vercel-ai__anthropic__anthropic-tool-no-args.chunks.txt': 'a tool call without arguments gets no empty input_json_delta',
  'vercel-ai__google__google-stream-tool-call-arguments.chunks.txt': 'the finish comes in a chunk of its own, not with the last function call',
  'vercel-ai__google__google-vertex-stream-tool-call-arguments-nested.1.chunks.txt': 'the finish comes in a chunk of its own, not with the last function call',
};
const seenKnown = new Set<RegExp>();

describe.each(DIALECT_IDS)('%s: our encoders write what the recordings hold', (dialect) => {
  const fixtures = loadFixtures(dialect);
  const shapes = new Map<string, KindShape>();
  for (const fixture of fixtures) learn(dialect, fixture.payloads, shapes);
  const spec = getDialect(dialect);

  it.each(fixtures.map((f) => [f.name, f] as const))('%s', async (_name, fixture) => {
    const events = decodeText(dialect, fixture.bytes);
    const response = await collectResponse(events);
    const streamed = parseFrames(dialect, encodeResponseStream(spec, events, { usage: response.usage }));
    const found = streamed.flatMap(({ data }) => differences(dialect, data, shapes));
    if (response.finishReason !== 'error') {
      const body = spec.encodeResponse(response, { usage: response.usage });
      // The body against the recorded event that carries the whole answer (Responses: the final event, not the
      // `response.created` the replay adds; Anthropic: `message_start`, whose recorded stop_reason is still null).
      const replayed = (spec.replayBody?.(body) ?? [])
        .filter((wire) => wire.data !== '[DONE]' && wire.event !== 'response.created' && wire.event !== 'message_stop')
        .map((wire) => ({ data: JSON.parse(wire.data) }));
      found.push(...replayed.flatMap(({ data }) => differences(dialect, data, shapes).map((d) => `body: ${d}`)));
    }
    const unknown = [...new Set(found)].filter((difference) => {
      const known = KNOWN[dialect].find((entry) => entry.difference.test(difference));
      if (known) seenKnown.add(known.difference);
      return !known;
    });
    expect(unknown).toEqual([]);
    if (SEQUENCE_CHECKED.has(dialect) && plain(events) && KNOWN_ORDER[fixture.name] === undefined) {
      const recorded = collapse(fixture.payloads.filter((p) => typeOf(p.data) === 'object').map((p) => kindOf(dialect, p.data)));
      expect(collapse(streamed.map((p) => kindOf(dialect, p.data)))).toEqual(recorded);
    }
  });

  it('every known difference is still seen (a fixed one leaves the list)', () => {
    expect(KNOWN[dialect].filter((entry) => !seenKnown.has(entry.difference)).map((entry) => entry.why)).toEqual([]);
  });
});
