/**
 * Decodes a Chat Completions stream (`chat.completion.chunk` objects, then
 * `data: [DONE]`): https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 *
 * What compatible providers do differently, all handled here (quirk options in
 * `DecoderOptions`, never copies of this decoder):
 * - Usage arrives in a chunk of its own AFTER the chunk with `finish_reason`
 *   (`stream_options.include_usage`), inside the choice (Moonshot), or twice
 *   (Groq: with the finish and again alone). So the finish is held until `[DONE]`
 *   or the end of the body; a body that ends after a `finish_reason` ended normally.
 *   Chunks after `[DONE]` (opencode sends a `cost` chunk there) are not read.
 * - Reasoning text comes as `reasoning_content` (DeepSeek, Moonshot, Z.ai, Alibaba),
 *   `reasoning` (Groq, OpenRouter, vLLM) or `reasoning_details` (OpenRouter, which
 *   sends the same text in `reasoning` AND `reasoning_details`). Per chunk, the
 *   first field of `reasoningFields` that carries text wins, so the text is never
 *   doubled. `reasoning_details` entries (summaries, signed text, encrypted blobs)
 *   are also kept in providerState for the round trip
 *   (https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks).
 * - Tool calls are indexed deltas (`tool_calls[].index`), with the variants of
 *   compatible servers read in tool-calls.ts.
 * - Errors come inside a data chunk (`{"error": {...}}`: OpenAI, vLLM, OpenRouter,
 *   llama.cpp; `{"object": "error", ...}`: older vLLM) or as `event: error` (Groq).
 * - Azure OpenAI sends a first chunk with `choices: []`, empty `id` and `model` and
 *   only `prompt_filter_results`, and chunks whose choice has no `delta` (content
 *   filter annotations): https://learn.microsoft.com/en-us/azure/ai-foundry/openai/concepts/content-filter-annotations.
 *   The message starts at the first chunk that names the response or has a choice.
 * - URL citations come as `delta.annotations` (`url_citation`, OpenAI search models
 *   and the OpenRouter web plugin: https://platform.openai.com/docs/guides/tools-web-search?api-mode=chat)
 *   and become `source` events, one per URL.
 *
 * Decisions a user sees:
 * - Only the choice with `index` 0 is decoded (`n > 1` is not supported by the
 *   protocol); chunks of other choices (which OpenAI sends as chunks of their own)
 *   are ignored, their text and finish_reason included.
 * - A `refusal` delta (https://platform.openai.com/docs/guides/structured-outputs#refusals)
 *   becomes text in its own text block whose providerState marks it
 *   `{ openai_completions: { refusal: true } }`, and a response that refused and then
 *   stopped finishes with 'refusal' (raw 'stop'). Encoding sends it back as `refusal`.
 * - `[DONE]` without any `finish_reason` finishes with 'other'; `[DONE]` before any
 *   chunk at all is an `invalid_response` error (llama.cpp servers before 2025-09
 *   sent their error on a non-standard `error:` SSE line, which SSE parsers drop,
 *   then `[DONE]`: ggml-org/llama.cpp#16109).
 * - Content sent as an array of parts (Mistral reasoning models:
 *   https://docs.mistral.ai/capabilities/reasoning/) is read: `text` parts as text,
 *   `thinking` parts as reasoning.
 */
import type { Event, FinishReason, ProviderState } from '@parlance/protocol';
import { createStreamState, guard } from '../shared/stream-state.ts';
import type { Decoder, DecoderOptions, WireEvent } from '../types.ts';
import { DIALECT_ID, finishErrorCode, isObject, type JsonObject, mapFinishReason, mapProviderError, mapUsage } from './mappings.ts';
import { createToolCallReader } from './tool-calls.ts';
import { blockId } from '../shared/block-id.ts';


/**
 * Default reasoning fields, in order of preference (see the header comment).
 *
 * @example
 * openaiCompletions.createDecoder({ reasoningFields: [...DEFAULT_REASONING_FIELDS, 'thinking'] });
 */
export const DEFAULT_REASONING_FIELDS = ['reasoning_content', 'reasoning', 'reasoning_details'] as const;

/**
 * What a reasoning part of this dialect carries for the round trip.
 *
 * @example
 * const field = (part.providerState?.openai_completions as ReasoningState | undefined)?.field;
 */
export interface ReasoningState {
  /** The delta field the text came from (`reasoning_content` is sent back as such). */
  field?: string;
  /** OpenRouter `reasoning_details`, merged by type and index, sent back verbatim. */
  reasoningDetails?: JsonObject[];
}

function nonEmpty(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The visible text of one `reasoning_details` entry (`reasoning.text` or `reasoning.summary`). */
function detailText(detail: JsonObject): string {
  if (detail.type === 'reasoning.text') return typeof detail.text === 'string' ? detail.text : '';
  if (detail.type === 'reasoning.summary') return typeof detail.summary === 'string' ? detail.summary : '';
  return '';
}

/** Merges streamed detail fragments: same type and index extend one entry (text appended, other fields replaced). */
function mergeDetails(into: JsonObject[], incoming: JsonObject[]): void {
  for (const detail of incoming) {
    const index = detail.index;
    const existing =
      typeof index === 'number' ? into.find((d) => d.type === detail.type && d.index === index) : undefined;
    if (!existing) {
      into.push({ ...detail });
      continue;
    }
    for (const [key, value] of Object.entries(detail)) {
      if (value === null || value === undefined) continue;
      if ((key === 'text' || key === 'summary') && typeof value === 'string') {
        existing[key] = (typeof existing[key] === 'string' ? existing[key] : '') + value;
      } else {
        existing[key] = value;
      }
    }
  }
}

export function createDecoder(options: DecoderOptions = {}): Decoder {
  const state = createStreamState();
  const reasoningFields = options.reasoningFields ?? DEFAULT_REASONING_FIELDS;
  const keepDetails = reasoningFields.includes('reasoning_details');
  let pending: { reason: FinishReason; raw: string } | undefined;
  let blockCount = 0;
  let textId: string | undefined;
  let refusalId: string | undefined;
  let refused = false;
  let reasoning: { id: string; state: ReasoningState; hasText: boolean } | undefined;
  /** A JSON chunk arrived (a `[DONE]` before any is not a response). */
  let sawChunk = false;
  const citedUrls = new Set<string>();

  const invalid = (out: Event[], message: string) => state.fail(out, { code: 'invalid_response', message });

  function closeText(out: Event[]) {
    if (textId !== undefined) state.end(out, textId);
    if (refusalId !== undefined) state.end(out, refusalId);
    textId = undefined;
    refusalId = undefined;
  }

  function closeReasoning(out: Event[]) {
    if (!reasoning) return;
    if (!reasoning.hasText) state.annotate(reasoning.id, { redacted: true });
    state.end(out, reasoning.id);
    reasoning = undefined;
  }

  function annotateReasoning() {
    if (!reasoning) return;
    const providerState: ProviderState = { [DIALECT_ID]: { ...reasoning.state } };
    state.annotate(reasoning.id, { providerState });
  }

  function openReasoning(out: Event[]) {
    if (reasoning) return reasoning;
    closeText(out);
    reasoning = { id: blockId('reasoning', blockCount++), state: {}, hasText: false };
    state.openReasoning(out, reasoning.id);
    return reasoning;
  }

  function onText(out: Event[], delta: string) {
    if (delta === '') return;
    closeReasoning(out);
    if (refusalId !== undefined) {
      state.end(out, refusalId);
      refusalId = undefined;
    }
    textId ??= blockId('text', blockCount++);
    state.text(out, textId, delta);
  }

  function onRefusal(out: Event[], delta: string) {
    if (delta === '') return;
    closeReasoning(out);
    if (textId !== undefined) {
      state.end(out, textId);
      textId = undefined;
    }
    if (refusalId === undefined) {
      refusalId = blockId('refusal', blockCount++);
      state.openText(out, refusalId, { [DIALECT_ID]: { refusal: true } });
    }
    refused = true;
    state.text(out, refusalId, delta);
  }

  function onReasoning(out: Event[], text: string, field: string | undefined, details: JsonObject[]) {
    if (text !== '') {
      const block = openReasoning(out);
      block.hasText = true;
      if (field !== undefined && block.state.field === undefined) {
        block.state.field = field;
        annotateReasoning();
      }
      state.reasoning(out, block.id, text);
    }
    if (details.length === 0) return;
    // A detail with no text (an encrypted blob) after the reasoning block closed gets a block
    // of its own, closed at once as redacted: it only carries the data to send back.
    const standalone = !reasoning;
    const block = openReasoning(out);
    block.state.reasoningDetails ??= [];
    mergeDetails(block.state.reasoningDetails, details);
    annotateReasoning();
    if (standalone && text === '') closeReasoning(out);
  }

  function readReasoning(out: Event[], delta: JsonObject) {
    let text = '';
    let field: string | undefined;
    for (const name of reasoningFields) {
      const value = delta[name];
      const candidate =
        name === 'reasoning_details'
          ? Array.isArray(value)
            ? value.filter(isObject).map(detailText).join('')
            : ''
          : typeof value === 'string'
            ? value
            : '';
      if (candidate !== '') {
        text = candidate;
        field = name;
        break;
      }
    }
    const details = keepDetails && Array.isArray(delta.reasoning_details) ? delta.reasoning_details.filter(isObject) : [];
    if (text !== '' || details.length > 0) onReasoning(out, text, field, details);
  }

  function readContent(out: Event[], content: unknown) {
    if (typeof content === 'string') onText(out, content);
    else if (Array.isArray(content)) {
      for (const part of content) {
        if (!isObject(part)) continue;
        if (part.type === 'text' && typeof part.text === 'string') onText(out, part.text);
        else if (part.type === 'thinking' && Array.isArray(part.thinking)) {
          const text = part.thinking
            .filter(isObject)
            .map((t) => (typeof t.text === 'string' ? t.text : ''))
            .join('');
          if (text !== '') onReasoning(out, text, 'thinking', []);
        }
      }
    }
  }

  const tools = createToolCallReader(state, options, {
    onNewCall(out) {
      closeText(out);
      closeReasoning(out);
    },
    invalid,
  });

  /** `delta.annotations`: only URL citations name a source. */
  function readAnnotations(out: Event[], annotations: unknown[]) {
    for (const annotation of annotations) {
      if (!isObject(annotation) || annotation.type !== 'url_citation') continue;
      const citation = isObject(annotation.url_citation) ? annotation.url_citation : annotation;
      const url = nonEmpty(citation.url);
      if (url === undefined || citedUrls.has(url)) continue;
      citedUrls.add(url);
      state.start(out);
      const event: Event = { type: 'source', url };
      const title = nonEmpty(citation.title);
      if (title !== undefined) event.title = title;
      out.push(event);
    }
  }

  function closeAll(out: Event[]) {
    closeText(out);
    closeReasoning(out);
    tools.flush(out);
  }

  function finishNow(out: Event[]) {
    closeAll(out);
    if (!pending) {
      state.finish(out, 'other');
      return;
    }
    let reason = refused && pending.reason === 'stop' ? 'refusal' : pending.reason;
    // vLLM, llama.cpp and others say "stop" after tool calls: what the model asked for is tool calls.
    if (reason === 'stop' && tools.count > 0) reason = 'tool-calls';
    state.finish(out, reason, pending.raw);
  }

  function readChunk(out: Event[], chunk: JsonObject) {
    sawChunk = true;
    const { choices } = chunk;
    if (choices !== undefined && choices !== null && !Array.isArray(choices)) {
      invalid(out, 'A chat.completion.chunk has a `choices` field that is not an array');
      return;
    }
    const list = Array.isArray(choices) ? choices : [];
    const responseId = nonEmpty(chunk.id);
    const model = nonEmpty(chunk.model);
    // Azure's prompt-filter chunk names nothing: wait for a chunk that does.
    if (responseId !== undefined || model !== undefined || list.length > 0) state.start(out, { responseId, model });
    // Choice 0 only; a choice without an index is the only one.
    let choice: JsonObject | undefined;
    for (const c of list) {
      if (!isObject(c)) {
        invalid(out, 'A chat.completion.chunk choice is not an object');
        return;
      }
      if (choice === undefined && (c.index ?? 0) === 0) choice = c;
    }
    if (choice) {
      const { delta } = choice;
      if (delta !== undefined && delta !== null && !isObject(delta)) {
        invalid(out, 'A chat.completion.chunk choice has a `delta` that is not an object');
        return;
      }
      if (delta) {
        readReasoning(out, delta);
        readContent(out, delta.content);
        if (typeof delta.refusal === 'string') onRefusal(out, delta.refusal);
        if (Array.isArray(delta.tool_calls)) {
          const calls: unknown[] = delta.tool_calls;
          for (let position = 0; position < calls.length; position++) if (!tools.read(out, calls[position], position)) return;
        }
        // The deprecated single `function_call` delta (https://platform.openai.com/docs/api-reference/chat/object).
        if (isObject(delta.function_call)) tools.read(out, { index: -1, function: delta.function_call }, 0);
        if (Array.isArray(delta.annotations)) readAnnotations(out, delta.annotations);
      }
      // SGLang sends `""` and DashScope `"null"` on chunks that do not finish.
      if (typeof choice.finish_reason === 'string' && choice.finish_reason !== '' && choice.finish_reason !== 'null') {
        const raw = choice.finish_reason;
        const reason = mapFinishReason(raw);
        if (reason === 'error') {
          // OpenRouter ends a failed generation this way; the error object, when present, is in the
          // choice, and the chunk may carry the usage of what was generated (billed): keep it.
          const usage = usageOf(chunk, choice);
          if (usage) state.addUsage(out, usage);
          state.fail(
            out,
            isObject(choice.error)
              ? mapProviderError(choice.error)
              : { code: finishErrorCode(raw), message: `The provider ended the response with finish_reason "${raw}"` },
          );
          return;
        }
        pending = { reason, raw };
      }
    }
    const usage = usageOf(chunk, choice);
    if (usage) state.addUsage(out, usage);
  }

  /**
   * Usage: top level (OpenAI and most), inside the choice (Moonshot), or only in x_groq (older Groq).
   * llama.cpp's server reports its prompt-cache hits only in `timings.cache_n` (the prompt tokens
   * reused from the KV cache; `prompt_tokens` counts them too), on the last chunk:
   * https://github.com/ggml-org/llama.cpp/blob/master/tools/server/README.md
   */
  function usageOf(chunk: JsonObject, choice: JsonObject | undefined) {
    const usage = mapUsage(chunk.usage) ?? (choice ? mapUsage(choice.usage) : undefined) ?? (isObject(chunk.x_groq) ? mapUsage(chunk.x_groq.usage) : undefined);
    const cached = isObject(chunk.timings) ? chunk.timings.cache_n : undefined;
    if (typeof cached !== 'number' || !Number.isFinite(cached) || cached < 0 || usage?.cacheReadTokens !== undefined) return usage;
    return { ...usage, cacheReadTokens: cached };
  }

  function readWire(out: Event[], wire: WireEvent) {
    const data = wire.data.trim();
    if (data === '[DONE]') {
      if (!sawChunk) {
        invalid(out, 'The provider ended the stream before sending any chunk (an error it reported outside `data:` lines?)');
        return;
      }
      state.start(out);
      finishNow(out);
      return;
    }
    if (wire.event !== undefined && wire.event !== 'message' && wire.event !== 'error') return;
    if (data === '') return;
    let chunk: unknown;
    try {
      chunk = JSON.parse(data);
    } catch (error) {
      if (wire.event === 'error') {
        state.fail(out, mapProviderError(data));
        return;
      }
      invalid(out, `A Chat Completions chunk is not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    if (
      wire.event === 'error' ||
      (isObject(chunk) && ((chunk.error !== undefined && chunk.error !== null) || chunk.object === 'error'))
    ) {
      // An error chunk can carry the usage so far (OpenRouter's mid-stream error chunk does).
      const usage = isObject(chunk) ? mapUsage(chunk.usage) : undefined;
      if (usage) state.addUsage(out, usage);
      state.fail(out, mapProviderError(chunk));
      return;
    }
    if (!isObject(chunk)) {
      invalid(out, `A Chat Completions chunk is not a JSON object: ${data.slice(0, 100)}`);
      return;
    }
    readChunk(out, chunk);
  }

  return {
    push(wire: WireEvent): Event[] {
      const out: Event[] = [];
      if (state.finished) return out;
      // The body in a plain try (no closure per chunk on the hot path); what `guard` does on a throw.
      try {
        readWire(out, wire);
      } catch (error) {
        return guard(state, out, () => {
          throw error;
        });
      }
      return out;
    },
    end(): Event[] {
      const out: Event[] = [];
      return guard(state, out, () => {
        if (state.finished) return;
        if (pending) {
          finishNow(out);
          return;
        }
        state.endOfStream(out);
      });
    },
    fail(failure): Event[] {
      const out: Event[] = [];
      state.fail(out, failure);
      return out;
    },
  };
}
