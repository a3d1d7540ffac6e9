/**
 * Gemini `streamGenerateContent?alt=sse`: `data: <GenerateContentResponse>` frames
 * (CRLF line ends), each a candidate with the parts produced since the last frame.
 * Thoughts are parts with `thought: true`; function calls arrive whole (no ids) unless
 * argument streaming is on, in which case they arrive as `partialArgs` by JSON path
 * (Vertex AI `streamFunctionCallArguments`); the last frame carries `finishReason`
 * and `usageMetadata`.
 * https://ai.google.dev/api/generate-content#method:-models.streamgeneratecontent
 * https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse
 * https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling#streaming-arguments
 * Errors: https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
import type { ErrorCode, FinishReason, Usage } from '@parlance/protocol';
import { sseFrame, statusForCode, type WireEncoder, type WireEncoderOptions, type WireError, type WireHttpError } from './types.ts';

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

function errorBody(error: WireError): unknown {
  const status = error.status ?? statusForCode(error.code);
  return { error: { code: status, message: error.message, status: STATUS_NAMES[error.code] ?? 'INTERNAL' } };
}

function usageMetadata(usage: Usage): Record<string, number> | undefined {
  if (usage.inputTokens === undefined && usage.outputTokens === undefined) return undefined;
  const prompt = usage.inputTokens ?? 0;
  const thoughts = usage.reasoningTokens ?? 0;
  // candidatesTokenCount leaves out the thoughts, which Gemini counts apart.
  const candidates = Math.max(0, (usage.outputTokens ?? 0) - thoughts);
  const out: Record<string, number> = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: usage.totalTokens ?? prompt + candidates + thoughts,
  };
  if (usage.reasoningTokens !== undefined) out.thoughtsTokenCount = thoughts;
  if (usage.cacheReadTokens !== undefined) out.cachedContentTokenCount = usage.cacheReadTokens;
  return out;
}

/** `partialArgs` entries for one value, string leaves cut into pieces (the order Vertex streams them). */
function partialArgs(value: unknown, path: string, pieceLength: number, out: Record<string, unknown>[]): void {
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
  }
  else if (typeof value === 'object') {
    for (const [key, item] of Object.entries(value as Record<string, unknown>)) partialArgs(item, `${path}.${key}`, pieceLength, out);
  }
}

export function googleGeminiEncoder(options: WireEncoderOptions = {}): WireEncoder {
  const tools = new Map<string, string>();
  const pieceLength = options.geminiArgumentPieceLength;
  let usage: Usage = {};
  const meta = { modelVersion: options.model ?? 'mock-model', responseId: options.responseId ?? 'mock-response-0001' };
  const frame = (parts: unknown[], extra: Record<string, unknown> = {}, candidate: Record<string, unknown> = {}) =>
    sseFrame({ candidates: [{ content: { parts, role: 'model' }, ...candidate, index: 0 }], ...extra, ...meta }, undefined, '\r\n');

  return {
    push(event) {
      switch (event.type) {
        case 'text-delta':
          return [frame([{ text: event.delta }])];
        case 'reasoning-delta':
          return [frame([{ text: event.delta, thought: true }])];
        case 'reasoning-end':
          // The signature travels on a part of its own; the client must send it back.
          return event.signature ? [frame([{ text: '', thought: true, thoughtSignature: event.signature }])] : [];
        case 'tool-call-start':
          tools.set(event.id, event.name);
          return pieceLength ? [frame([{ functionCall: { name: event.name, willContinue: true } }])] : [];
        case 'tool-call-end': {
          const name = tools.get(event.id);
          if (name === undefined) return [];
          tools.delete(event.id);
          if (!pieceLength) return [frame([{ functionCall: { name, args: event.input ?? {} } }])];
          const args: Record<string, unknown>[] = [];
          partialArgs(event.input ?? {}, '$', pieceLength, args);
          return [
            ...args.map((arg) => frame([{ functionCall: { partialArgs: [arg], willContinue: true } }])),
            frame([{ functionCall: {} }]),
          ];
        }
        case 'usage':
          usage = { ...usage, ...event.usage };
          return [];
        case 'finish': {
          usage = { ...usage, ...event.usage };
          const metadata = usageMetadata(usage);
          return [
            frame([{ text: '' }], metadata ? { usageMetadata: metadata } : {}, {
              finishReason: FINISH[event.finishReason] ?? 'STOP',
            }),
          ];
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

export function googleGeminiHttpError(error: WireError): WireHttpError {
  return {
    status: error.status ?? statusForCode(error.code),
    headers: { 'content-type': 'application/json; charset=UTF-8' },
    body: JSON.stringify(errorBody(error)),
  };
}
