/**
 * One entry point over the five dialects' response encoders: pick one by dialect id, encode a
 * whole event list or a scripted turn, build a provider's HTTP error response.
 */
import { getDialect, type DialectId } from '@parlance/dialects';
import { mergeUsage, type Event, type Usage } from '@parlance/protocol';
import { turnToEvents, type ScriptedTurn } from '../script.ts';
import type { WireEncoder, WireEncoderOptions, WireError, WireHttpError } from './types.ts';

/**
 * The dialect's response encoder (`getDialect(dialect).createResponseEncoder`).
 *
 * @example
 * const encoder = createWireEncoder('openai_responses', { model: 'gpt-5-mini' });
 */
export function createWireEncoder(dialect: DialectId, options?: WireEncoderOptions): WireEncoder {
  return getDialect(dialect).createResponseEncoder(options);
}

/**
 * The provider's HTTP error response for an error raised before the stream starts.
 *
 * @example
 * const { status, body } = wireHttpError('anthropic_messages', { code: 'overloaded', message: 'Overloaded', status: 529 });
 */
export function wireHttpError(dialect: DialectId, error: WireError): WireHttpError {
  return getDialect(dialect).encodeError(error);
}

/**
 * The streaming response's content type.
 *
 * @example
 * wireContentType('ollama_chat'); // 'application/x-ndjson'
 */
export function wireContentType(dialect: DialectId): string {
  return getDialect(dialect).streamContentType;
}

/**
 * The final usage an event list reports (later reports overlay earlier ones).
 *
 * @example
 * finalUsage(events); // { inputTokens: 12, outputTokens: 40 }
 */
export function finalUsage(events: readonly Event[]): Usage {
  let usage: Usage = {};
  for (const event of events) if (event.type === 'usage' || event.type === 'finish') usage = mergeUsage(usage, event.usage);
  return usage;
}

/**
 * 
 *
 * @example
 * encodeEvents('openai_responses', events, { model: 'gpt-5-mini' });
 */
export interface EncodeEventsOptions extends WireEncoderOptions {
  /** Close the stream as the provider does after its last event (default true). */
  complete?: boolean;
  /** Report this provider error after the events (a mid-stream failure). */
  error?: WireError;
}

/**
 * The wire frames of an event list, grouped by the event that produced them (so a
 * server can pause between events), with the closing frames as a last group.
 *
 * @example
 * for (const frames of encodeEventFrames('google_gemini', events)) { for (const f of frames) res.write(f); await sleep(20); }
 */
export function encodeEventFrames(dialect: DialectId, events: readonly Event[], options: EncodeEventsOptions = {}): string[][] {
  const encoder = createWireEncoder(dialect, { usage: finalUsage(events), ...options });
  const groups = events.map((event) => encoder.push(event));
  const tail: string[] = [];
  if (options.error) tail.push(...encoder.error(options.error));
  else if (options.complete !== false) tail.push(...encoder.end());
  groups.push(tail);
  return groups;
}

/**
 * The whole response body for an event list.
 *
 * @example
 * const body = encodeEvents('openai_completions', turnToEvents({ text: 'Hello' }));
 * expect(decodeText('openai_completions', body).at(-1)?.type).toBe('finish');
 */
export function encodeEvents(dialect: DialectId, events: readonly Event[], options?: EncodeEventsOptions): string {
  return encodeEventFrames(dialect, events, options)
    .map((group) => group.join(''))
    .join('');
}

/**
 * The whole response body for one scripted turn, as the provider would stream it.
 *
 * @example
 * writeFileSync('tool-call.sse', encodeTurn('anthropic_messages', { toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] }));
 */
export function encodeTurn(dialect: DialectId, turn: ScriptedTurn, options: WireEncoderOptions & { call?: number } = {}): string {
  const events = turnToEvents(turn, options.call ?? 0);
  const failure = turn.error;
  if (failure && failure.afterEvents !== undefined) {
    return encodeEvents(dialect, events.slice(0, failure.afterEvents), { ...options, error: failure });
  }
  return encodeEvents(dialect, events, options);
}
