/**
 * Decodes Bedrock's ConverseStream events (each an event-stream message whose `:event-type` names it):
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStreamOutput.html
 *
 * `messageStart` -> `contentBlockStart` (tool use) / `contentBlockDelta` (text, toolUse.input fragments,
 * reasoningContent text / signature / redactedContent) / `contentBlockStop`, by `contentBlockIndex` ->
 * `messageStop` (stopReason) -> `metadata` (usage; the last event, where `finish` is emitted). A body that
 * ends after `messageStop` without `metadata` still finishes; one that ends before it was cut. Exception
 * events (`throttlingException`, `modelStreamErrorException`, ...) fail the response, keeping what arrived.
 */
import { createStreamState, type StreamState } from '../shared/stream-state.ts';
import type { Decoder } from '../types.ts';
import type { ErrorCode, Event, FinishReason, Usage } from '@parlance/protocol';
import { CONVERSE } from './converse-encode.ts';

type Json = Record<string, unknown>;

/**
 * Exceptions ConverseStream sends mid-stream, by event type, and the error code each becomes.
 *
 * @example
 * CONVERSE_EXCEPTIONS.throttlingException; // 'rate_limited'
 */
export const CONVERSE_EXCEPTIONS: Record<string, ErrorCode> = {
  internalServerException: 'server_error',
  modelStreamErrorException: 'server_error',
  serviceUnavailableException: 'overloaded',
  throttlingException: 'rate_limited',
  validationException: 'invalid_request',
  modelTimeoutException: 'timeout',
};

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * A Converse `stopReason` as a protocol finish reason.
 *
 * @example
 * converseFinishReason('tool_use'); // 'tool-calls'
 */
export function converseFinishReason(raw: string): FinishReason {
  switch (raw) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content-filter';
    default:
      return 'other';
  }
}

/** Converse usage -> protocol usage (`inputTokens` counts cached tokens too, as the protocol does). */
function toUsage(raw: Json): Usage {
  const usage: Usage = {};
  const input = num(raw.inputTokens);
  const read = num(raw.cacheReadInputTokens);
  const write = num(raw.cacheWriteInputTokens);
  if (input !== undefined) usage.inputTokens = input + (read ?? 0) + (write ?? 0);
  const output = num(raw.outputTokens);
  if (output !== undefined) usage.outputTokens = output;
  if (read !== undefined) usage.cacheReadTokens = read;
  if (write !== undefined) usage.cacheWriteTokens = write;
  const total = num(raw.totalTokens);
  if (total !== undefined) usage.totalTokens = total;
  return usage;
}

interface Block {
  id: string;
  kind: 'text' | 'reasoning' | 'tool';
}

/**
 * A push decoder for ConverseStream wire events (`event` = the event type, `data` = its JSON payload).
 *
 * @example
 * const decoder = createConverseDecoder();
 * const events = [...wires.flatMap((w) => decoder.push(w)), ...decoder.end()];
 */
export function createConverseDecoder(): Decoder {
  const state: StreamState = createStreamState();
  const blocks = new Map<number, Block>();
  let stop: { reason: FinishReason; raw: string } | undefined;
  let counter = 0;

  function block(out: Event[], index: number, kind: Block['kind'], start?: Json): Block {
    const open = blocks.get(index);
    if (open && open.kind === kind) return open;
    if (open) close(out, index);
    const id = kind === 'tool' ? String(start?.toolUseId ?? `call_${counter}`) : `${kind === 'text' ? 't' : 'r'}${counter}`;
    counter++;
    const made: Block = { id, kind };
    blocks.set(index, made);
    if (kind === 'text') state.openText(out, id);
    else if (kind === 'reasoning') state.openReasoning(out, id);
    else state.toolStart(out, id, String(start?.name ?? ''));
    return made;
  }

  function close(out: Event[], index: number) {
    const open = blocks.get(index);
    if (!open) return;
    blocks.delete(index);
    state.end(out, open.id);
  }

  function onDelta(out: Event[], index: number, delta: Json) {
    if (typeof delta.text === 'string') {
      state.text(out, block(out, index, 'text').id, delta.text);
    } else if (isObject(delta.toolUse)) {
      const open = blocks.get(index);
      if (open?.kind !== 'tool') throw new Error(`a toolUse delta for block ${index}, which is not a tool call`);
      if (typeof delta.toolUse.input === 'string' && delta.toolUse.input !== '') state.toolDelta(out, open.id, delta.toolUse.input);
    } else if (isObject(delta.reasoningContent)) {
      const reasoning = delta.reasoningContent;
      const open = block(out, index, 'reasoning');
      if (typeof reasoning.text === 'string' && reasoning.text !== '') state.reasoning(out, open.id, reasoning.text);
      if (typeof reasoning.signature === 'string') state.annotate(open.id, { signature: reasoning.signature });
      if (typeof reasoning.redactedContent === 'string') {
        state.annotate(open.id, { redacted: true, providerState: { [CONVERSE]: { redactedContent: reasoning.redactedContent } } });
      }
    }
    // Other deltas (citations, images) carry nothing the protocol shows yet: ignored.
  }

  function dispatch(out: Event[], type: string | undefined, payload: Json) {
    const exception = type && Object.hasOwn(CONVERSE_EXCEPTIONS, type) ? type : undefined;
    if (exception) {
      const message = typeof payload.message === 'string' ? payload.message : 'The provider reported an error';
      state.fail(out, { code: CONVERSE_EXCEPTIONS[exception]!, message: `${exception}: ${message}` });
      return;
    }
    switch (type) {
      case 'messageStart':
        state.start(out);
        return;
      case 'contentBlockStart': {
        const index = num(payload.contentBlockIndex) ?? 0;
        const start = isObject(payload.start) ? payload.start : {};
        if (isObject(start.toolUse)) block(out, index, 'tool', start.toolUse);
        return;
      }
      case 'contentBlockDelta':
        state.start(out);
        if (isObject(payload.delta)) onDelta(out, num(payload.contentBlockIndex) ?? 0, payload.delta);
        return;
      case 'contentBlockStop':
        close(out, num(payload.contentBlockIndex) ?? 0);
        return;
      case 'messageStop': {
        for (const index of [...blocks.keys()]) close(out, index);
        const raw = typeof payload.stopReason === 'string' ? payload.stopReason : 'end_turn';
        stop = { reason: converseFinishReason(raw), raw };
        return;
      }
      case 'metadata':
        state.start(out);
        if (isObject(payload.usage)) state.addUsage(out, toUsage(payload.usage));
        if (stop) state.finish(out, stop.reason, stop.raw);
        return;
      default:
        // Unknown event types are ignored, as the API reference asks of clients.
        return;
    }
  }

  return {
    push(wire) {
      const out: Event[] = [];
      if (state.finished || wire.data.trim() === '') return out;
      try {
        const payload: unknown = JSON.parse(wire.data);
        if (!isObject(payload)) throw new Error('an event payload that is not a JSON object');
        dispatch(out, wire.event, payload);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        state.fail(out, { code: 'invalid_response', message: `Could not decode the Bedrock Converse stream: ${message}` });
      }
      return out;
    },
    end() {
      const out: Event[] = [];
      if (!state.finished) state.endOfStream(out, stop);
      return out;
    },
    fail(failure) {
      const out: Event[] = [];
      if (!state.finished) state.fail(out, failure);
      return out;
    },
  };
}
