/**
 * The sample requests the five dialects' encoding tests share. Each test sends the same
 * conversation through its own dialect and asserts its own wire body, so the inputs are
 * built here once; what a dialect does with them stays asserted in its test.
 */
import type { Message, ModelRequest, Part } from '@parlance/protocol';
import { expect } from 'vitest';
import type { Dialect } from '../src/types.ts';

export type Body = Record<string, any>;

/**
 * An `encode` for one dialect's tests: fills in the model, and checks every body against
 * the provider's published request schema (`check` returns '' when the body is valid).
 */
export function checkedEncoder(dialect: Dialect, model: string, check: (body: unknown) => string): (request: Partial<ModelRequest>) => Body {
  return (request) => {
    const body = dialect.encodeRequest({ model, messages: [], ...request });
    expect(check(body)).toBe('');
    return body;
  };
}

let n = 0;
/** A message with a fresh id (no encoder sends message ids). */
export const msg = (role: Message['role'], ...parts: Part[]): Message => ({ id: `m${n++}`, role, parts });
export const text = (value: string): Part => ({ type: 'text', text: value });
export const user = (value: string): Message => msg('user', text(value));

/** A history of one question and the assistant turn that answered it with `parts`. */
export const answered = (question: string, ...parts: Part[]): Message[] => [user(question), msg('assistant', ...parts)];

/** A question and the assistant's turn calling `get_weather` for Paris, then Rome, with the given call ids. */
export const weatherCalls = (first: string, second: string): Message[] =>
  answered(
    'Weather in Paris and Rome?',
    text('Checking.'),
    { type: 'tool-call', id: first, name: 'get_weather', input: { city: 'Paris' } },
    { type: 'tool-call', id: second, name: 'get_weather', input: { city: 'Rome' } },
  );

/**
 * A plain turn: a system prompt and a system message (every dialect joins them, in this
 * order), one user message, and each sampling setting.
 */
export function plainTurn() {
  return {
    system: 'Be brief.',
    messages: [msg('system', text('Answer in French.')), user('Hello')],
    maxOutputTokens: 256,
    temperature: 0.2,
    topP: 0.9,
    stop: ['END'],
  } satisfies Partial<ModelRequest>;
}

/** File parts, each by base64 data or by URL. */
export const files = {
  pngData: { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
  jpegDataUrl: { type: 'file', mediaType: 'image/jpeg', url: 'data:image/jpeg;base64,/9j/4AAQ' },
  jpegUrl: { type: 'file', mediaType: 'image/jpeg', url: 'https://example.com/cat.jpg' },
  pdfData: { type: 'file', mediaType: 'application/pdf', data: 'JVBERi0=', filename: 'report.pdf' },
  pdfUrl: { type: 'file', mediaType: 'application/pdf', url: 'https://example.com/a.pdf' },
} as const satisfies Record<string, Part>;

/** Reasoning Anthropic produced, readable and signed: other dialects can only send its text. */
export const anthropicReasoning = (value: string, signature = 'sig'): Part => ({
  type: 'reasoning',
  text: value,
  signature,
  providerState: { anthropic_messages: { signature } },
});

/** Redacted reasoning Anthropic produced: nothing another dialect can send. */
export const anthropicRedactedReasoning = (): Part => ({ type: 'reasoning', text: '', redacted: true, providerState: { anthropic_messages: { data: 'xyz' } } });

/** A web search Anthropic's server ran, call and result: other dialects drop both. */
export const anthropicServerSearch = (id: string, input: Record<string, unknown> = { query: 'x' }): Part[] => [
  { type: 'tool-call', id, name: 'web_search', input, providerExecuted: true, providerState: { anthropic_messages: {} } },
  { type: 'tool-result', toolCallId: id, name: 'web_search', output: [], providerExecuted: true },
];

/** What `run` threw, or undefined when it returned. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
