/**
 * Protocol events -> Gemini API responses, as Google serves them.
 * Streaming (`streamGenerateContent?alt=sse`): `data: <GenerateContentResponse>` frames (CRLF
 * line ends), each a candidate with the parts produced since the last frame. Thoughts are
 * parts with `thought: true`; function calls arrive whole (no ids) unless argument streaming
 * is on, in which case they arrive as `partialArgs` by JSON path (Vertex AI
 * `streamFunctionCallArguments`); the last frame carries `finishReason` and `usageMetadata`.
 * The thought signature goes where Gemini puts it: on the first `functionCall` part of the
 * turn when the model calls functions, otherwise on the first text part after the thoughts, or
 * on an empty text part of its own (`{"text":"","thoughtSignature":...}`, never a thought part:
 * clients keep signatures of non-thought parts only) when no text follows, as in the recorded
 * streams in `../shared/fixtures/google_gemini`.
 * https://ai.google.dev/gemini-api/docs/thought-signatures
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
 * https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling#streaming-arguments
 * Errors: https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
import type { ErrorCode, FinishReason, Part, Response, Usage } from '@parlance/protocol';
import { isObject, toArgumentsObject } from '../shared/json.ts';
import { sseFrame, statusForCode, type EncodedHttpError, type ResponseEncoder, type ResponseEncoderOptions, type ResponseEncoding, type ResponseError } from '../shared/response-encoding.ts';

type Json = Record<string, unknown>;

const DIALECT = 'google_gemini';

const FINISH: Partial<Record<FinishReason, string>> = {
  stop: 'STOP',
  'tool-calls': 'STOP',
  length: 'MAX_TOKENS',
  'content-filter': 'SAFETY',
  refusal: 'SAFETY',
  other: 'OTHER',
};

// google.rpc.Code names: https://cloud.google.com/apis/design/errors#handling_errors
const STATUS_NAMES: Partial<Record<ErrorCode, string>> = {
  invalid_request: 'INVALID_ARGUMENT',
  context_length_exceeded: 'INVALID_ARGUMENT',
  content_filter: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  rate_limited: 'RESOURCE_EXHAUSTED',
  overloaded: 'UNAVAILABLE',
  timeout: 'DEADLINE_EXCEEDED',
};

function errorBody(error: ResponseError): Json {
  const status = error.status ?? statusForCode(error.code);
  return { error: { code: status, message: error.message, status: STATUS_NAMES[error.code] ?? 'INTERNAL' } };
}

/** https://ai.google.dev/api/generate-content#UsageMetadata */
function usageMetadata(usage: Usage): Json | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const prompt = usage.inputTokens ?? 0;
  const thoughts = usage.reasoningTokens ?? 0;
  // candidatesTokenCount leaves out the thoughts, which Gemini counts apart.
  const candidates = Math.max(0, (usage.outputTokens ?? 0) - thoughts);
  const out: Json = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: usage.totalTokens ?? prompt + candidates + thoughts,
  };
  if (usage.reasoningTokens !== undefined) out.thoughtsTokenCount = thoughts;
  if (usage.cacheReadTokens !== undefined) out.cachedContentTokenCount = usage.cacheReadTokens;
  return out;
}

/** `partialArgs` entries for one value, string leaves cut into pieces (the order Vertex streams them). */
function partialArgs(value: unknown, path: string, pieceLength: number, out: Json[]): void {
  if (typeof value === 'string') {
    for (let at = 0; at < value.length; at += pieceLength) {
      out.push({ jsonPath: path, stringValue: value.slice(at, at + pieceLength), willContinue: true });
    }
    out.push({ jsonPath: path, stringValue: '' });
  } else if (typeof value === 'number') out.push({ jsonPath: path, numberValue: value });
  else if (typeof value === 'boolean') out.push({ jsonPath: path, boolValue: value });
  else if (value === null) out.push({ jsonPath: path, nullValue: null });
  else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) partialArgs(item, `${path}[${index}]`, pieceLength, out);
  } else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Json)) partialArgs(item, `${path}.${key}`, pieceLength, out);
  }
}

/** The Gemini call id kept from a Gemini stream (Gemini 3 sends ids; older models none). */
function providerCallId(part: { providerState?: Record<string, unknown> | undefined }): string | undefined {
  const state = part.providerState?.[DIALECT];
  return isObject(state) && typeof state.id === 'string' ? state.id : undefined;
}

/** The thought signature a Gemini stream put on this block's part. */
function ownSignature(providerState: Record<string, unknown> | undefined): string | undefined {
  const state = providerState?.[DIALECT];
  return isObject(state) && typeof state.thoughtSignature === 'string' ? state.thoughtSignature : undefined;
}

function functionCall(name: string, args: unknown, id: string | undefined): Json {
  const call: Json = { name, args: toArgumentsObject(args) };
  if (id !== undefined) call.id = id;
  return call;
}

export function createGeminiResponseEncoder(options: ResponseEncoderOptions = {}): ResponseEncoder {
  const tools = new Map<string, { name: string; id: string | undefined; signature: string | undefined }>();
  const pieceLength = options.geminiArgumentPieceLength;
  let usage: Usage = {};
  /** A thought signature waiting for the part it belongs on. */
  let signature: string | undefined;
  const meta = { modelVersion: options.model ?? 'mock-model', responseId: options.responseId ?? 'parlance-response-0001' };
  const frame = (parts: Json[], extra: Json = {}, candidate: Json = {}) =>
    sseFrame({ candidates: [{ content: { parts, role: 'model' }, ...candidate, index: 0 }], ...extra, ...meta }, undefined, '\r\n');
  /** A function-call part, carrying the pending signature when it is the turn's first call. */
  const callPart = (call: Json, own: string | undefined): Json => {
    const part: Json = { functionCall: call };
    // A call that came from Gemini keeps its own signature; otherwise the turn's goes on its first call.
    const carried = own ?? signature;
    if (carried !== undefined) part.thoughtSignature = carried;
    signature = undefined;
    return part;
  };
  /** The pending signature on a part of its own, before more thoughts. */
  const flushSignature = (): string[] => {
    if (signature === undefined) return [];
    const out = [frame([{ text: '', thoughtSignature: signature }])];
    signature = undefined;
    return out;
  };
  /** A text part, carrying the pending signature when it is the first after the thoughts. */
  const textPart = (text: string): Json => {
    if (signature === undefined) return { text };
    const part = { text, thoughtSignature: signature };
    signature = undefined;
    return part;
  };

  return {
    push(event) {
      switch (event.type) {
        case 'text-delta':
          return [frame([textPart(event.delta)])];
        case 'reasoning-delta':
          return [...flushSignature(), frame([{ text: event.delta, thought: true }])];
        case 'reasoning-end':
          if (event.signature) signature = event.signature;
          return [];
        case 'tool-call-start':
          if (event.providerExecuted) return [];
          tools.set(event.id, { name: event.name, id: providerCallId(event), signature: ownSignature(event.providerState) });
          return pieceLength ? [frame([callPart({ name: event.name, willContinue: true }, ownSignature(event.providerState))])] : [];
        case 'tool-call-end': {
          const tool = tools.get(event.id);
          if (tool === undefined) return [];
          tools.delete(event.id);
          const id = providerCallId(event) ?? tool.id;
          if (!pieceLength) return [frame([callPart(functionCall(tool.name, event.input, id), ownSignature(event.providerState) ?? tool.signature)])];
          const args: Json[] = [];
          partialArgs(event.input ?? {}, '$', pieceLength, args);
          return [...args.map((arg) => frame([{ functionCall: { partialArgs: [arg], willContinue: true } }])), frame([{ functionCall: {} }])];
        }
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          const metadata = usageMetadata(usage);
          return [frame([textPart('')], metadata ? { usageMetadata: metadata } : {}, { finishReason: FINISH[event.finishReason] ?? 'STOP' })];
        }
        default:
          return [];
      }
    },
    end: () => [],
    // A failure after the stream began arrives as an error object in a data frame.
    error: (error) => [sseFrame(errorBody(error), undefined, '\r\n')],
  };
}

function signatureOf(part: Part): string | undefined {
  if (part.type === 'reasoning' && part.signature) return part.signature;
  const state = part.providerState?.[DIALECT];
  return isObject(state) && typeof state.thoughtSignature === 'string' ? state.thoughtSignature : undefined;
}

/** The non-streaming body (`generateContent`): one candidate holding every part, merged where the stream would be. */
export function encodeGeminiResponse(response: Response, options: ResponseEncoderOptions = {}): Record<string, unknown> {
  const parts: Json[] = [];
  const hasCalls = response.message.parts.some((part) => part.type === 'tool-call' && !part.providerExecuted);
  let signature: string | undefined;
  for (const part of response.message.parts) {
    const own = signatureOf(part);
    if (part.type === 'reasoning') {
      if (own !== undefined) signature = own;
      parts.push({ text: part.text, thought: true });
    } else if (part.type === 'text') {
      // Without calls, the turn's signature goes on the first text after the thoughts.
      const carried = own ?? (hasCalls ? undefined : signature);
      if (carried === signature) signature = undefined;
      parts.push(carried !== undefined ? { text: part.text, thoughtSignature: carried } : { text: part.text });
    } else if (part.type === 'tool-call' && !part.providerExecuted) {
      const item: Json = { functionCall: functionCall(part.name, part.input, providerCallId(part)) };
      const carried = own ?? signature;
      if (carried !== undefined) item.thoughtSignature = carried;
      signature = undefined;
      parts.push(item);
    }
  }
  if (signature !== undefined && !hasCalls) parts.push({ text: '', thoughtSignature: signature });
  const body: Json = {
    candidates: [{ content: { parts, role: 'model' }, finishReason: FINISH[response.finishReason] ?? 'STOP', index: 0 }],
    modelVersion: options.model ?? response.model ?? 'mock-model',
    responseId: options.responseId ?? response.id ?? 'parlance-response-0001',
  };
  const metadata = usageMetadata(response.usage);
  if (metadata) body.usageMetadata = metadata;
  return body;
}

export function encodeGeminiError(error: ResponseError): EncodedHttpError {
  return {
    status: error.status ?? statusForCode(error.code),
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(errorBody(error)),
  };
}

export const geminiResponseEncoding: ResponseEncoding = {
  streamContentType: 'text/event-stream',
  createResponseEncoder: createGeminiResponseEncoder,
  encodeResponse: encodeGeminiResponse,
  encodeError: encodeGeminiError,
};
