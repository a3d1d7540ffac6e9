/**
 * Decodes Ollama's `/api/chat` stream: NDJSON, one ChatResponse object per line, the last
 * with `done: true`. https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 *
 * - `message.thinking` -> a reasoning block, `message.content` -> a text block (a switch
 *   of kind closes the open block).
 * - `message.tool_calls` arrive whole (arguments as an object) and without ids (newer
 *   servers may send one): the id is the server's or `call_<n>`, n counting the response's
 *   calls, so decoding is deterministic (and made unique if a server repeats one). Ollama
 *   matches results by `tool_name`. A call with an empty or missing name (small models
 *   emit them) is still a call, named '': the caller answers it as an unknown tool rather
 *   than losing the rest of the response.
 * - `done_reason: "load"` / `"unload"` answer a request that only (un)loads the model
 *   (https://github.com/ollama/ollama/blob/main/docs/api.md#load-a-model). If one arrives
 *   before anything was generated, the finish waits for the end of the body, so a server
 *   that sends it as a notice before generating loses nothing.
 * - Usage: `prompt_eval_count` -> inputTokens (Ollama reuses its KV cache but reports the
 *   tokens it evaluated; there is no cached-token count), `eval_count` -> outputTokens
 *   (thinking tokens included: Ollama counts every generated token), totalTokens = their sum.
 * - `{"error": "..."}` lines (a failure mid-stream, e.g. the runner crashed) -> error event.
 */
import type { ErrorCode, Event, FinishReason, Usage } from '@parlance/protocol';
import { createStreamState, guard, parseJson } from '../shared/stream-state.ts';
import type { Decoder, DecoderFailure, DecoderOptions, WireEvent } from '../types.ts';
import { blockId } from '../shared/block-id.ts';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const count = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/** Ollama errors are bare strings; the wording is all there is to classify them. */
export function ollamaFailure(error: unknown): DecoderFailure {
  const message =
    typeof error === 'string' ? error : isObject(error) && typeof error.message === 'string' ? error.message : 'Ollama reported an error';
  let code: ErrorCode = 'server_error';
  if (/not found|no such model|pull/i.test(message)) code = 'not_found';
  else if (/too many requests|rate limit/i.test(message)) code = 'rate_limited';
  else if (/unauthori[sz]ed|api key/i.test(message)) code = 'authentication';
  else if (/context (length|window)|exceeds the (maximum )?context|input length/i.test(message)) code = 'context_length_exceeded';
  else if (/invalid|unknown|cannot unmarshal|does not support/i.test(message)) code = 'invalid_request';
  return { code, message };
}

/** `done_reason`: stop | length | load | unload (the last two end a model (un)load request). */
function mapDoneReason(raw: string | undefined, sawToolCall: boolean): FinishReason {
  if (raw === undefined || raw === 'stop') return sawToolCall ? 'tool-calls' : 'stop';
  if (raw === 'length') return 'length';
  return 'other';
}

function argumentsOf(value: unknown): unknown {
  if (isObject(value)) return value;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    return parsed.ok ? parsed.value : value;
  }
  return {};
}

/**
 * A line that only carries answer text, as Ollama writes it (`textDeltas: false` skips those):
 * https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-streaming
 */
const TEXT_LINE = /^\{"model":"[^"\\]*","created_at":"[^"\\]*","message":\{"role":"assistant","content":"(?:[^"\\]|\\.)*"\},"done":false\}$/;
const TEXT_LINE_TAIL = '"},"done":false}';

/**
 * A decoder for one `/api/chat` stream (what `ollamaChat.createDecoder` gives). With `textDeltas: false`
 * (`DecoderOptions`), a line that only adds text to the text block already open is skipped unparsed.
 *
 * @example
 * const decoder = createOllamaDecoder();
 * for (const line of lines) for (const event of decoder.push({ data: line })) handle(event);
 */
export function createOllamaDecoder(options: DecoderOptions = {}): Decoder {
  const skipText = options.textDeltas === false;
  const state = createStreamState();
  let block: { kind: 'text' | 'reasoning'; id: string } | undefined;
  const counts = { text: 0, reasoning: 0, call: 0 };
  let sawToolCall = false;
  const usedIds = new Set<string>();
  /** A load/unload `done` line seen before any output: the finish, unless more lines follow. */
  let held: { reason: FinishReason; raw: string } | undefined;

  function closeBlock(out: Event[]) {
    if (block) state.end(out, block.id);
    block = undefined;
  }

  function append(out: Event[], kind: 'text' | 'reasoning', delta: unknown) {
    if (typeof delta !== 'string' || delta === '') return;
    if (block?.kind !== kind) {
      closeBlock(out);
      block = { kind, id: blockId(kind, counts[kind]++) };
    }
    if (kind === 'text') state.text(out, block.id, delta);
    else state.reasoning(out, block.id, delta);
  }

  function onToolCall(out: Event[], call: unknown) {
    const fn = isObject(call) ? call.function : undefined;
    if (!isObject(fn)) throw new Error('A tool call without a function object');
    closeBlock(out);
    const base = isObject(call) && typeof call.id === 'string' && call.id !== '' ? call.id : `call_${counts.call}`;
    let id = base;
    for (let n = 1; usedIds.has(id); n++) id = `${base}_${n}`;
    usedIds.add(id);
    counts.call++;
    sawToolCall = true;
    const input = argumentsOf(fn.arguments);
    state.toolStart(out, id, typeof fn.name === 'string' ? fn.name : '');
    state.toolDelta(out, id, typeof input === 'string' ? input : JSON.stringify(input));
    state.end(out, id, { input });
  }

  function onLine(out: Event[], payload: Json) {
    if (payload.error !== undefined) {
      closeBlock(out);
      return state.fail(out, ollamaFailure(payload.error));
    }
    held = undefined;
    state.start(out, { model: typeof payload.model === 'string' ? payload.model : undefined });
    const message = payload.message;
    if (isObject(message)) {
      append(out, 'reasoning', message.thinking);
      append(out, 'text', message.content);
      if (Array.isArray(message.tool_calls)) for (const call of message.tool_calls) onToolCall(out, call);
    }
    if (payload.done !== true) return;
    const usage: Usage = {};
    const input = count(payload.prompt_eval_count);
    const output = count(payload.eval_count);
    if (input !== undefined) usage.inputTokens = input;
    if (output !== undefined) usage.outputTokens = output;
    if (input !== undefined && output !== undefined) usage.totalTokens = input + output;
    if (Object.keys(usage).length) state.addUsage(out, usage);
    closeBlock(out);
    const raw = typeof payload.done_reason === 'string' ? payload.done_reason : undefined;
    const nothingYet = counts.text + counts.reasoning + counts.call === 0;
    if ((raw === 'load' || raw === 'unload') && nothingYet) {
      held = { reason: mapDoneReason(raw, false), raw };
      return;
    }
    state.finish(out, mapDoneReason(raw, sawToolCall), raw);
  }

  /**
   * Whether `data` is a line whose only effect is more text in the open text block:
   * `{"model":"…","created_at":"…","message":{"role":"assistant","content":"…"},"done":false}`, matched, never
   * parsed. Anything else (thinking, tool calls, the last line, other fields, the text's first line) is
   * decoded as usual.
   */
  function skippable(data: string): boolean {
    return block?.kind === 'text' && data.endsWith(TEXT_LINE_TAIL) && TEXT_LINE.test(data);
  }

  return {
    push(wire: WireEvent) {
      const out: Event[] = [];
      if (state.finished || (skipText && skippable(wire.data))) return out;
      return guard(state, out, () => {
        const data = wire.data.trim();
        if (data === '') return;
        const parsed = parseJson(data);
        if (!parsed.ok || !isObject(parsed.value)) {
          closeBlock(out);
          return state.fail(out, {
            code: 'invalid_response',
            message: `The provider sent an invalid line: ${parsed.ok ? 'not a JSON object' : parsed.message}`,
          });
        }
        onLine(out, parsed.value);
      });
    },
    end() {
      const out: Event[] = [];
      return guard(state, out, () => {
        closeBlock(out);
        state.endOfStream(out, held);
      });
    },
    fail(failure) {
      const out: Event[] = [];
      return guard(state, out, () => {
        closeBlock(out);
        state.fail(out, failure);
      });
    },
  };
}
