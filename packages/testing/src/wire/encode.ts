/**
 * One entry point over the five wire encoders: pick one by dialect id, encode a whole
 * event list or a scripted turn, build a provider's HTTP error response.
 */
import type { DialectId } from '@parlance/dialects';
import { mergeUsage, type Event, type Usage } from '@parlance/protocol';
import { turnToEvents, type ScriptedTurn } from '../script.ts';
import { anthropicMessagesEncoder, anthropicMessagesHttpError } from './anthropic-messages.ts';
import { googleGeminiEncoder, googleGeminiHttpError } from './google-gemini.ts';
import { ollamaChatEncoder, ollamaChatHttpError } from './ollama-chat.ts';
import { openaiCompletionsEncoder, openaiCompletionsHttpError } from './openai-completions.ts';
import { openaiResponsesEncoder, openaiResponsesHttpError } from './openai-responses.ts';
import type { WireEncoder, WireEncoderOptions, WireError, WireHttpError } from './types.ts';

const ENCODERS: Record<DialectId, { encoder: (options?: WireEncoderOptions) => WireEncoder; httpError: (error: WireError) => WireHttpError }> = {
  openai_completions: { encoder: openaiCompletionsEncoder, httpError: openaiCompletionsHttpError },
  openai_responses: { encoder: openaiResponsesEncoder, httpError: openaiResponsesHttpError },
  anthropic_messages: { encoder: anthropicMessagesEncoder, httpError: anthropicMessagesHttpError },
  google_gemini: { encoder: googleGeminiEncoder, httpError: googleGeminiHttpError },
  ollama_chat: { encoder: ollamaChatEncoder, httpError: ollamaChatHttpError },
};

function entry(dialect: DialectId) {
  const found = ENCODERS[dialect];
  if (!found) throw new TypeError(`No wire encoder for dialect "${dialect}"`);
  return found;
}

export function createWireEncoder(dialect: DialectId, options?: WireEncoderOptions): WireEncoder {
  return entry(dialect).encoder(options);
}

/** The provider's HTTP error response for an error raised before the stream starts. */
export function wireHttpError(dialect: DialectId, error: WireError): WireHttpError {
  return entry(dialect).httpError(error);
}

/** The streaming response's content type. */
export function wireContentType(dialect: DialectId): string {
  return dialect === 'ollama_chat' ? 'application/x-ndjson' : 'text/event-stream';
}

/** The final usage an event list reports (later reports overlay earlier ones). */
export function finalUsage(events: readonly Event[]): Usage {
  let usage: Usage = {};
  for (const event of events) if (event.type === 'usage' || event.type === 'finish') usage = mergeUsage(usage, event.usage);
  return usage;
}

export interface EncodeEventsOptions extends WireEncoderOptions {
  /** Close the stream as the provider does after its last event (default true). */
  complete?: boolean;
  /** Report this provider error after the events (a mid-stream failure). */
  error?: WireError;
}

/**
 * The wire frames of an event list, grouped by the event that produced them (so a
 * server can pause between events), with the closing frames as a last group.
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

/** The whole response body for an event list. */
export function encodeEvents(dialect: DialectId, events: readonly Event[], options?: EncodeEventsOptions): string {
  return encodeEventFrames(dialect, events, options)
    .map((group) => group.join(''))
    .join('');
}

/** The whole response body for one scripted turn, as the provider would stream it. */
export function encodeTurn(dialect: DialectId, turn: ScriptedTurn, options: WireEncoderOptions & { call?: number } = {}): string {
  const events = turnToEvents(turn, options.call ?? 0);
  const failure = turn.error;
  if (failure && failure.afterEvents !== undefined) {
    return encodeEvents(dialect, events.slice(0, failure.afterEvents), { ...options, error: failure });
  }
  return encodeEvents(dialect, events, options);
}
