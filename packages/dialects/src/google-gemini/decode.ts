/**
 * Decodes `streamGenerateContent?alt=sse`: every SSE event is a whole
 * GenerateContentResponse. https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
 *
 * - Only the first candidate is read (Parlance asks for one).
 * - Consecutive text parts form one text block, consecutive `thought: true` parts one
 *   reasoning block; another kind of part closes the block.
 * - `thoughtSignature` may sit on any part (text, thought, functionCall), often on a final
 *   empty text part; on the first non-thought part after thoughts it signs the thoughts too.
 *   The latest one of a block is kept in
 *   `providerState.google_gemini.thoughtSignature` (and as `signature` on reasoning-end),
 *   so the encoder can send it back on the same part.
 *   https://ai.google.dev/gemini-api/docs/thought-signatures
 * - Function calls carry no id (or, on newer APIs, an `id`): the id is the provider's or
 *   `call_<n>`, n counting the response's calls, so a decode is deterministic; results are
 *   matched back by name (and the provider id, kept in providerState, when there was one).
 * - Gemini sends no terminal event: the end of the body after a chunk with `finishReason`
 *   is a normal end; without one the stream was cut.
 */
import type { Event, FinishReason, ProviderState, Usage } from '@parlance/protocol';
import { createStreamState, guard, parseJson } from '../shared/stream-state.ts';
import type { Decoder, DecoderFailure, WireEvent } from '../types.ts';
import { googleRpcFailure } from '../shared/google-rpc-error.ts';
import { createArgsBuilder, type ArgsBuilder, type PartialArg } from './partial-args.ts';
import { blockId } from '../shared/block-id.ts';
import { definedFields } from '../shared/json.ts';

const DIALECT = 'google_gemini';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * https://ai.google.dev/api/generate-content#FinishReason. Decisions:
 * - STOP after at least one function call is 'tool-calls' (Gemini has no separate reason).
 * - Safety-type stops (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_*
 *   safety/recitation, ESCALATION) are 'content-filter'.
 * - MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, MALFORMED_RESPONSE: the model produced
 *   output that cannot be used. They end as 'error' with an `invalid_response` error (retryable:
 *   sampling again usually works), so an agent loop does not mistake them for a normal stop.
 * - MISSING_THOUGHT_SIGNATURE: our request lacked a signature: 'error' with `invalid_request`.
 * - Everything else (OTHER, LANGUAGE, TOO_MANY_TOOL_CALLS, NO_IMAGE, unknown values) is 'other'.
 */
function mapFinishReason(raw: string, sawToolCall: boolean): { reason: FinishReason; failure?: DecoderFailure } {
  switch (raw) {
    case 'STOP':
      return { reason: sawToolCall ? 'tool-calls' : 'stop' };
    case 'MAX_TOKENS':
      return { reason: 'length' };
    case 'SAFETY':
    case 'RECITATION':
    case 'BLOCKLIST':
    case 'PROHIBITED_CONTENT':
    case 'SPII':
    case 'IMAGE_SAFETY':
    case 'IMAGE_PROHIBITED_CONTENT':
    case 'IMAGE_RECITATION':
    case 'ESCALATION':
      return { reason: 'content-filter' };
    case 'MALFORMED_FUNCTION_CALL':
    case 'UNEXPECTED_TOOL_CALL':
    case 'MALFORMED_RESPONSE':
      return { reason: 'error', failure: { code: 'invalid_response', message: `The model's output was unusable (${raw})`, retryable: true } };
    case 'MISSING_THOUGHT_SIGNATURE':
      return {
        reason: 'error',
        failure: { code: 'invalid_request', message: 'The request lacks a thought signature Gemini requires (MISSING_THOUGHT_SIGNATURE)', retryable: false },
      };
    default:
      return { reason: 'other' };
  }
}

/**
 * https://ai.google.dev/api/generate-content#UsageMetadata. `promptTokenCount` already
 * includes cached tokens (it "is still the total effective prompt size"). Tool-use prompt
 * tokens (`toolUsePromptTokenCount`: search results, fetched URLs, code output fed back to
 * the model) are reported beside it, are billed as input and are part of
 * `totalTokenCount`, so `inputTokens` is prompt + tool-use prompt (other libraries that
 * dropped them under-reported grounded calls' input by up to 20x: vercel/ai#14575,
 * BerriAI/litellm#33530). `candidatesTokenCount` excludes thoughts; `outputTokens` is
 * candidates + thoughts (what is billed as output, the same convention as OpenAI's
 * completion tokens), with thoughts also in `reasoningTokens`. The per-modality details
 * (`promptTokensDetails`, `candidatesTokensDetails`, ...) only split these totals: ignored.
 */
export function usageFromMetadata(meta: unknown): Usage | undefined {
  if (!isObject(meta)) return undefined;
  const usage: Usage = {};
  const prompt = num(meta.promptTokenCount);
  const toolPrompt = num(meta.toolUsePromptTokenCount);
  const candidates = num(meta.candidatesTokenCount);
  const thoughts = num(meta.thoughtsTokenCount);
  const cached = num(meta.cachedContentTokenCount);
  const total = num(meta.totalTokenCount);
  if (prompt !== undefined || toolPrompt !== undefined) usage.inputTokens = (prompt ?? 0) + (toolPrompt ?? 0);
  if (candidates !== undefined || thoughts !== undefined) usage.outputTokens = (candidates ?? 0) + (thoughts ?? 0);
  if (thoughts !== undefined) usage.reasoningTokens = thoughts;
  if (cached !== undefined) usage.cacheReadTokens = cached;
  if (total !== undefined) usage.totalTokens = total;
  return Object.keys(usage).length ? usage : undefined;
}

/** The candidate with index 0 (or no index). */
function firstCandidate(candidates: unknown): Json | undefined {
  if (!Array.isArray(candidates)) return undefined;
  for (const c of candidates) if (isObject(c) && (c.index === undefined || c.index === 0)) return c;
  return undefined;
}

/** This dialect's providerState holding the fields that are set, or nothing when none is (the request decoder's too). */
export function geminiState(fields: Json): ProviderState | undefined {
  const defined = definedFields(fields);
  return Object.keys(defined).length ? { [DIALECT]: defined } : undefined;
}

interface OpenBlock {
  kind: 'text' | 'reasoning';
  id: string;
  signature?: string;
}

interface OpenCall {
  id: string;
  builder: ArgsBuilder;
  args?: Json;
  /** A signature that arrived after the call started (it goes on tool-call-end). */
  lateSignature?: string;
  providerId?: string;
}

export function createGeminiDecoder(): Decoder {
  const state = createStreamState();
  let block: OpenBlock | undefined;
  let call: OpenCall | undefined;
  const counts = { text: 0, reasoning: 0, call: 0, code: 0 };
  let lastCodeId: string | undefined;
  let sawToolCall = false;
  let pending: { reason: FinishReason; raw: string; failure?: DecoderFailure } | undefined;
  let lastUsage = '';
  const sources = new Set<string>();

  function closeBlock(out: Event[]) {
    if (!block) return;
    if (block.signature !== undefined) {
      const patch: { signature?: string; providerState: ProviderState } = {
        providerState: { [DIALECT]: { thoughtSignature: block.signature } },
      };
      if (block.kind === 'reasoning') patch.signature = block.signature;
      state.annotate(block.id, patch);
    }
    state.end(out, block.id);
    block = undefined;
  }

  function openBlock(out: Event[], kind: OpenBlock['kind']) {
    closeBlock(out);
    const id = blockId(kind, counts[kind]++);
    block = { kind, id };
    if (kind === 'text') state.openText(out, id);
    else state.openReasoning(out, id);
  }

  function closeCall(out: Event[]) {
    if (!call) return;
    const closing = call.builder.finish();
    if (closing) state.toolDelta(out, call.id, closing);
    const options: { input: unknown; providerState?: ProviderState } = { input: call.args ?? call.builder.value };
    const providerState = call.lateSignature ? geminiState({ thoughtSignature: call.lateSignature, id: call.providerId }) : undefined;
    if (providerState) options.providerState = providerState;
    state.end(out, call.id, options);
    call = undefined;
  }

  function applyPartialArgs(out: Event[], partialArgs: unknown) {
    if (!call || !Array.isArray(partialArgs)) return;
    for (const arg of partialArgs) {
      if (!isObject(arg)) continue;
      const result = call.builder.apply(arg as PartialArg);
      if (!result.ok) throw new Error(`Function call "${call.id}" has ${result.message}`);
      if (result.text) state.toolDelta(out, call.id, result.text);
    }
  }

  function onFunctionCall(out: Event[], fc: Json, signature: string | undefined) {
    closeBlock(out);
    if (typeof fc.name === 'string' && fc.name !== '') {
      closeCall(out);
      const providerId = typeof fc.id === 'string' && fc.id !== '' ? fc.id : undefined;
      const id = providerId ?? `call_${counts.call}`;
      counts.call++;
      sawToolCall = true;
      const providerState = geminiState({ thoughtSignature: signature, id: providerId });
      state.toolStart(out, id, fc.name, providerState ? { providerState } : undefined);
      call = { id, builder: createArgsBuilder() };
      if (providerId) call.providerId = providerId;
      if (isObject(fc.args)) {
        call.args = fc.args;
        state.toolDelta(out, id, JSON.stringify(fc.args));
      }
    } else if (!call) {
      if (Array.isArray(fc.partialArgs) && fc.partialArgs.length > 0) {
        throw new Error('Streamed function-call arguments arrived with no function call open');
      }
      return; // an empty terminator with nothing open is harmless
    } else if (signature) {
      call.lateSignature = signature;
    }
    applyPartialArgs(out, fc.partialArgs);
    // A call continues only while `willContinue` says so; the last partial chunk may omit it
    // instead of sending an empty `functionCall: {}` terminator (both are recorded).
    if (fc.willContinue !== true) closeCall(out);
  }

  function onPart(out: Event[], part: Json) {
    const signature = typeof part.thoughtSignature === 'string' && part.thoughtSignature !== '' ? part.thoughtSignature : undefined;
    if (isObject(part.functionCall)) return onFunctionCall(out, part.functionCall, signature);
    closeCall(out);
    if (typeof part.text === 'string') {
      const kind = part.thought === true ? 'reasoning' : 'text';
      if (block?.kind !== kind) {
        // Gemini signs unsigned thoughts on the first non-thought part after them (the first text, or
        // an empty text part of its own): that signature is the reasoning's too, so a caller of
        // another dialect holds it with the reasoning. The text keeps it as well (sent back on
        // the same part to Gemini).
        const signsThoughts = kind === 'text' && block?.kind === 'reasoning' && block.signature === undefined && signature !== undefined;
        if (signsThoughts) block!.signature = signature;
        if (part.text === '' && (signature === undefined || signsThoughts)) return;
        openBlock(out, kind);
      }
      if (kind === 'text') state.text(out, block!.id, part.text);
      else state.reasoning(out, block!.id, part.text);
      if (signature !== undefined) block!.signature = signature;
      return;
    }
    // Code execution is run by Google: a provider-executed call and its result.
    // https://ai.google.dev/gemini-api/docs/code-execution. Newer APIs give both parts an `id`
    // (the result names its code's id); without one a result answers the latest code part.
    // A signature on either part is kept so the encoder sends it back on the same part.
    if (isObject(part.executableCode)) {
      closeBlock(out);
      const providerId = typeof part.executableCode.id === 'string' && part.executableCode.id !== '' ? part.executableCode.id : undefined;
      const id = providerId ?? `code_${counts.code++}`;
      lastCodeId = id;
      const providerState = { [DIALECT]: signature ? { executableCode: true, thoughtSignature: signature } : { executableCode: true } };
      state.toolStart(out, id, 'code_execution', { providerExecuted: true, providerState });
      state.end(out, id, { input: part.executableCode });
      return;
    }
    if (isObject(part.codeExecutionResult)) {
      closeBlock(out);
      const providerId = typeof part.codeExecutionResult.id === 'string' && part.codeExecutionResult.id !== '' ? part.codeExecutionResult.id : undefined;
      const toolCallId = providerId ?? lastCodeId ?? `code_${counts.code++}`;
      out.push({
        type: 'tool-result',
        toolCallId,
        name: 'code_execution',
        output: part.codeExecutionResult,
        providerExecuted: true,
        providerState: { [DIALECT]: signature ? { codeExecutionResult: true, thoughtSignature: signature } : { codeExecutionResult: true } },
      });
      return;
    }
    // Generated media: inline bytes (image output) or, on Vertex AI, a file by URI. Image models
    // sign their image parts (the signature must go back for multi-turn editing) and may send
    // draft images while thinking (`thought: true`), marked so a UI can tell them from the answer.
    // https://ai.google.dev/gemini-api/docs/image-generation#thinking-process
    const media = isObject(part.inlineData) && typeof part.inlineData.data === 'string' ? part.inlineData : undefined;
    const linked = isObject(part.fileData) && typeof part.fileData.fileUri === 'string' ? part.fileData : undefined;
    if (media || linked) {
      closeBlock(out);
      const source = (media ?? linked)!;
      const mediaType = typeof source.mimeType === 'string' && source.mimeType !== '' ? source.mimeType : 'application/octet-stream';
      const event: Event = media
        ? { type: 'file', mediaType, data: media.data as string }
        : { type: 'file', mediaType, url: linked!.fileUri as string };
      const providerState = geminiState({ thoughtSignature: signature, thought: part.thought === true ? true : undefined });
      if (providerState) event.providerState = providerState;
      out.push(event);
      return;
    }
    // Other part kinds (videoMetadata, toolCall of server tools, ...) are not content: ignored.
  }

  /** https://ai.google.dev/api/generate-content#GroundingMetadata: web, retrieved and maps chunks become sources. */
  function onGrounding(out: Event[], grounding: unknown) {
    if (!isObject(grounding) || !Array.isArray(grounding.groundingChunks)) return;
    for (const chunk of grounding.groundingChunks) {
      if (!isObject(chunk)) continue;
      const ref = [chunk.web, chunk.retrievedContext, chunk.maps].find(isObject);
      if (!ref || typeof ref.uri !== 'string' || sources.has(ref.uri)) continue;
      sources.add(ref.uri);
      const event: Event = { type: 'source', url: ref.uri };
      if (typeof ref.title === 'string') event.title = ref.title;
      out.push(event);
    }
  }

  /**
   * Citations of recited sources: `citationMetadata.citationSources` (Gemini API,
   * https://ai.google.dev/api/generate-content#CitationMetadata) or `.citations` (Vertex AI,
   * https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/CitationMetadata).
   * Entries without a URI (license-only) are not sources.
   */
  function onCitations(out: Event[], metadata: unknown) {
    if (!isObject(metadata)) return;
    const list = Array.isArray(metadata.citationSources) ? metadata.citationSources : metadata.citations;
    if (!Array.isArray(list)) return;
    for (const citation of list) {
      if (!isObject(citation) || typeof citation.uri !== 'string' || citation.uri === '' || sources.has(citation.uri)) continue;
      sources.add(citation.uri);
      const event: Event = { type: 'source', url: citation.uri };
      if (typeof citation.title === 'string' && citation.title !== '') event.title = citation.title;
      out.push(event);
    }
  }

  function fail(out: Event[], failure: DecoderFailure) {
    closeBlock(out);
    closeCall(out);
    state.fail(out, failure);
  }

  function onPayload(out: Event[], payload: Json) {
    if (payload.error !== undefined) return fail(out, googleRpcFailure(payload.error));
    // Every chunk repeats the response id and model; only the first is read (hot path: no object per chunk).
    if (!state.started) {
      state.start(out, {
        responseId: typeof payload.responseId === 'string' ? payload.responseId : undefined,
        model: typeof payload.modelVersion === 'string' ? payload.modelVersion : undefined,
      });
    }
    const candidate = firstCandidate(payload.candidates);
    if (isObject(candidate)) {
      const content = candidate.content;
      if (isObject(content) && Array.isArray(content.parts)) {
        for (const part of content.parts) if (isObject(part)) onPart(out, part);
      }
      onGrounding(out, candidate.groundingMetadata);
      onCitations(out, candidate.citationMetadata);
      if (typeof candidate.finishReason === 'string' && candidate.finishReason !== '') {
        pending = { raw: candidate.finishReason, ...mapFinishReason(candidate.finishReason, sawToolCall) };
      }
    }
    const usage = usageFromMetadata(payload.usageMetadata);
    if (usage) {
      const key = JSON.stringify(usage);
      if (key !== lastUsage) {
        lastUsage = key;
        state.addUsage(out, usage);
      }
    }
    // The prompt itself was blocked: no candidate will come.
    // https://ai.google.dev/api/generate-content#PromptFeedback
    const feedback = payload.promptFeedback;
    if (!isObject(candidate) && isObject(feedback) && typeof feedback.blockReason === 'string') {
      pending = { reason: 'content-filter', raw: feedback.blockReason };
    }
  }

  function onEachPayload(out: Event[], payload: unknown) {
    if (!isObject(payload)) return fail(out, { code: 'invalid_response', message: 'The provider sent a payload that is not an object' });
    onPayload(out, payload);
  }

  return {
    push(wire: WireEvent) {
      const out: Event[] = [];
      if (state.finished) return out;
      return guard(state, out, () => {
        const data = wire.data.trim();
        if (data === '' || data === '[DONE]') return;
        const parsed = parseJson(data);
        if (!parsed.ok) return fail(out, { code: 'invalid_response', message: `The provider sent invalid JSON: ${parsed.message}` });
        // A body that is a JSON array (non-SSE `streamGenerateContent`) holds the same payloads.
        if (!Array.isArray(parsed.value)) return onEachPayload(out, parsed.value);
        for (const payload of parsed.value) {
          if (state.finished) return;
          onEachPayload(out, payload);
          if (!isObject(payload)) return;
        }
      });
    },
    end() {
      const out: Event[] = [];
      return guard(state, out, () => {
        if (state.finished) return;
        closeBlock(out);
        closeCall(out);
        if (pending?.failure) {
          out.push({
            type: 'error',
            code: pending.failure.code,
            message: pending.failure.message,
            retryable: pending.failure.retryable ?? false,
          });
        }
        state.endOfStream(out, pending && { reason: pending.reason, raw: pending.raw });
      });
    },
    fail(failure) {
      const out: Event[] = [];
      return guard(state, out, () => fail(out, failure));
    },
  };
}
