/**
 * Every frame and body the mock provider sends, checked against the provider's published
 * response schema (the documents vendored in packages/dialects/test/api-schemas; see
 * SOURCES.md there). The frames come from the dialects' response encoders, so this also
 * holds for a gateway answering an SDK.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECT_IDS, getDialect, type DialectId } from '@parlance/dialects';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { API_SCHEMAS_DIR, discoveryValidator, GOOGLE_SCHEMA, OPENAI_SCHEMA, schemaValidator, validateAgainst, validateAgainstDiscovery } from '../../dialects/test/schemas.ts';
import { mockProviderServer } from '../src/mock-server/handler.ts';
import { SCENARIO_NAMES, SCENARIOS } from './scenarios.ts';

// Real HTTP and real SDKs on a shared 2-core machine: generous per-test time, never a timing assertion.
vi.setConfig({ testTimeout: 30_000 });

const ANTHROPIC_SCHEMA = 'anthropic__lingua__openapi.yml';
const OLLAMA_SCHEMA = 'ollama__ollama__openapi.yaml';
const MODEL = 'mock-model-1';

interface Frame {
  event?: string;
  data: unknown;
}

function parseFrames(dialect: DialectId, text: string): Frame[] {
  if (dialect === 'ollama_chat') return text.split('\n').filter((line) => line !== '').map((line) => ({ data: JSON.parse(line) }));
  const frames: Frame[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    const frame: Frame = { data: undefined };
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event: ')) frame.event = line.slice(7);
      else if (line.startsWith('data: ')) frame.data = line.slice(6) === '[DONE]' ? '[DONE]' : JSON.parse(line.slice(6));
    }
    frames.push(frame);
  }
  return frames;
}

function openaiEventSchemas(): Map<string, string> {
  // ResponseStreamEvent is a union of one component per event type; each names its type in a one-value enum.
  const doc = JSON.parse(readFileSync(join(API_SCHEMAS_DIR, OPENAI_SCHEMA), 'utf8')) as { components: { schemas: Record<string, { anyOf?: { $ref: string }[]; oneOf?: { $ref: string }[]; properties?: { type?: { enum?: string[] } } }> } };
  const schemas = doc.components.schemas;
  const union = schemas.ResponseStreamEvent!;
  const out = new Map<string, string>();
  for (const member of union.anyOf ?? union.oneOf ?? []) {
    const name = member.$ref.split('/').pop()!;
    const type = schemas[name]?.properties?.type?.enum?.[0];
    if (type) out.set(type, name);
  }
  return out;
}

const ANTHROPIC_EVENTS: Record<string, string> = {
  message_start: 'MessageStartEvent',
  message_delta: 'MessageDeltaEvent',
  message_stop: 'MessageStopEvent',
  content_block_start: 'ContentBlockStartEvent',
  content_block_delta: 'ContentBlockDeltaEvent',
  content_block_stop: 'ContentBlockStopEvent',
  error: 'ErrorResponse',
};

let responsesEvents: Map<string, string> | undefined;

/** '' when the frame is what the provider documents, else why not. */
/**
 * The published schema marks a text block's `citations` required (nullable), but the API omits
 * it when nothing is cited (every recording in shared/fixtures/anthropic_messages), and
 * `@ai-sdk/anthropic` rejects the `null`: where the two disagree the recordings win, so the
 * check fills in the documented `null` before validating.
 */
function withCitations(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withCitations);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = withCitations(item);
  if (out.type === 'text' && typeof out.text === 'string' && !('citations' in out)) out.citations = null;
  return out;
}

function checkFrame(dialect: DialectId, frame: Frame): string {
  const data = frame.data as Record<string, unknown>;
  const component = (name: string) => `#/components/schemas/${name}`;
  switch (dialect) {
    case 'openai_completions':
      if (data === ('[DONE]' as unknown)) return '';
      return validateAgainst(OPENAI_SCHEMA, component('error' in data ? 'ErrorResponse' : 'CreateChatCompletionStreamResponse'), data);
    case 'openai_responses': {
      responsesEvents ??= openaiEventSchemas();
      const name = responsesEvents.get(String(data.type));
      if (!name) return `no schema for Responses event "${String(data.type)}"`;
      if (frame.event !== data.type) return `event line "${frame.event}" differs from type "${String(data.type)}"`;
      return validateAgainst(OPENAI_SCHEMA, component(name), data);
    }
    case 'anthropic_messages': {
      if (frame.event !== data.type) return `event line "${frame.event}" differs from type "${String(data.type)}"`;
      // `ping` is documented in prose only: "Event streams may also include any number of ping events."
      // https://docs.anthropic.com/en/docs/build-with-claude/streaming#ping-events
      if (data.type === 'ping') return Object.keys(data).length === 1 ? '' : 'ping carries fields';
      const name = ANTHROPIC_EVENTS[String(data.type)];
      return name ? validateAgainst(ANTHROPIC_SCHEMA, component(name), withCitations(data)) : `no schema for Anthropic event "${String(data.type)}"`;
    }
    case 'google_gemini':
      // A mid-stream failure is a google.rpc.Status inside `error` (the discovery document has no envelope for it).
      if ('error' in data) return validateAgainstDiscovery(GOOGLE_SCHEMA, 'Status', { code: (data.error as { code: number }).code, message: (data.error as { message: string }).message });
      return validateAgainstDiscovery(GOOGLE_SCHEMA, 'GenerateContentResponse', data);
    case 'ollama_chat':
      return validateAgainst(OLLAMA_SCHEMA, component('error' in data ? 'ErrorResponse' : data.done ? 'ChatResponse' : 'ChatStreamEvent'), data);
  }
}

function checkBody(dialect: DialectId, body: unknown, status: number): string {
  const component = (name: string) => `#/components/schemas/${name}`;
  const ok = status === 200;
  switch (dialect) {
    case 'openai_completions':
      return validateAgainst(OPENAI_SCHEMA, component(ok ? 'CreateChatCompletionResponse' : 'ErrorResponse'), body);
    case 'openai_responses':
      return validateAgainst(OPENAI_SCHEMA, component(ok ? 'Response' : 'ErrorResponse'), body);
    case 'anthropic_messages':
      return validateAgainst(ANTHROPIC_SCHEMA, component(ok ? 'Message' : 'ErrorResponse'), withCitations(body));
    case 'google_gemini': {
      if (ok) return validateAgainstDiscovery(GOOGLE_SCHEMA, 'GenerateContentResponse', body);
      const error = (body as { error: { code: number; message: string; status: string } }).error;
      if (typeof error?.status !== 'string') return 'a Google error names its status';
      return validateAgainstDiscovery(GOOGLE_SCHEMA, 'Status', { code: error.code, message: error.message });
    }
    case 'ollama_chat':
      return validateAgainst(OLLAMA_SCHEMA, component(ok ? 'ChatResponse' : 'ErrorResponse'), body);
  }
}

function request(dialect: DialectId, stream: boolean): Request {
  const path =
    dialect === 'google_gemini' && !stream ? `/v1beta/models/${MODEL}:generateContent` : getDialect(dialect).path(MODEL, { stream: true });
  const body: Record<string, unknown> = { model: MODEL, messages: [{ role: 'user', content: 'hi' }] };
  if (dialect !== 'google_gemini') body.stream = stream;
  return new Request(`http://mock.test${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

// Compiling the published documents takes seconds (the OpenAI one is 3 MB): once, before the cases.
beforeAll(() => {
  responsesEvents = openaiEventSchemas();
  for (const name of ['CreateChatCompletionStreamResponse', 'CreateChatCompletionResponse', 'Response', 'ErrorResponse', ...responsesEvents.values()]) {
    schemaValidator(OPENAI_SCHEMA, `#/components/schemas/${name}`);
  }
  for (const name of [...Object.values(ANTHROPIC_EVENTS), 'Message']) schemaValidator(ANTHROPIC_SCHEMA, `#/components/schemas/${name}`);
  discoveryValidator(GOOGLE_SCHEMA, 'GenerateContentResponse');
}, 120_000);

describe.each(DIALECT_IDS)('%s: the mock frames and bodies match the published response schema', (dialect) => {
  it.each(SCENARIO_NAMES)('%s, streamed', async (name) => {
    const handler = mockProviderServer({ dialect, script: [SCENARIOS[name]] });
    const response = await handler(request(dialect, true));
    const text = await response.text();
    if (response.status !== 200) {
      expect(checkBody(dialect, JSON.parse(text), response.status)).toBe('');
      return;
    }
    const frames = parseFrames(dialect, text);
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(checkFrame(dialect, frame), JSON.stringify(frame.data)).toBe('');
  });

  it.each(SCENARIO_NAMES)('%s, not streamed', async (name) => {
    const handler = mockProviderServer({ dialect, script: [SCENARIOS[name]] });
    const response = await handler(request(dialect, false));
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body: unknown = await response.json();
    expect(checkBody(dialect, body, response.status), JSON.stringify(body)).toBe('');
  });
});
