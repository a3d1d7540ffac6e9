/**
 * Embeddings through the gateway, in each caller's API: OpenAI `POST /v1/embeddings`, Ollama
 * `POST /api/embed` (and the older `/api/embeddings`), Gemini `models/{model}:embedContent` and
 * `:batchEmbedContents`. The names a caller may send are `GatewayOptions.embeddings`; the
 * engine's `embedMany` batches the inputs for whichever provider answers.
 * https://platform.openai.com/docs/api-reference/embeddings/create
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-embeddings
 * https://ai.google.dev/api/embeddings
 */
import { getDialect, type Dialect } from '@parlance/dialects';
import { embedMany, resolveEmbeddingModel, type EmbeddingModel } from '@parlance/engine';
import { ParlanceError } from '@parlance/protocol';
import type { Context } from 'hono';
import { errorResponse, shown } from './answer.ts';
import type { GatewayEdge } from './edge.ts';

/** At most this many inputs per call (OpenAI's own limit is 2,048 per request). */
const MAX_INPUTS = 2048;

/** What a caller asked to embed, read from its own API's body. */
interface EmbedCall {
  model: string;
  values: string[];
  dimensions?: number;
  taskType?: string;
}

function invalid(message: string): never {
  throw new ParlanceError('invalid_request', message, { retryable: false });
}

function textList(input: unknown, field: string): string[] {
  const list = typeof input === 'string' ? [input] : input;
  if (!Array.isArray(list) || list.length === 0) invalid(`${field} must be a string or a non-empty array of strings`);
  if (list.length > MAX_INPUTS) invalid(`${field} has more than ${MAX_INPUTS} inputs`);
  // Token arrays (OpenAI accepts them) name one model's tokenizer: no other provider can read them.
  if (!list.every((item): item is string => typeof item === 'string')) invalid(`${field} must hold strings (token arrays cannot cross providers)`);
  return list;
}

function dimensionsOf(value: unknown, field: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) invalid(`${field} must be a positive integer`);
  return value;
}

/** Gemini `Content` -> its text (embeddings read text parts only). */
function contentText(content: unknown, field: string): string {
  const parts = (content as { parts?: unknown } | null)?.parts;
  if (!Array.isArray(parts)) invalid(`${field}.parts must be an array`);
  return parts.map((part) => (typeof (part as { text?: unknown })?.text === 'string' ? (part as { text: string }).text : '')).join('');
}

/** OpenAI's `encoding_format: "base64"` (the openai SDK's default): little-endian float32 bytes. */
function base64Floats(vector: number[]): string {
  const bytes = new Uint8Array(new Float32Array(vector).buffer);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/**
 * Mounts the embedding routes; returns the Gemini method handler (`embedContent`,
 * `batchEmbedContents`) for the gateway's Gemini path router.
 */
export function mountEmbeddings(edge: GatewayEdge): (c: Context, model: string, method: 'embedContent' | 'batchEmbedContents') => Promise<Response> {
  const models = new Map<string, EmbeddingModel>();
  const table = edge.options.embeddings ?? {};
  const resolve = (name: string): EmbeddingModel | undefined => {
    if (!Object.hasOwn(table, name)) return undefined;
    let model = models.get(name);
    if (!model) {
      model = resolveEmbeddingModel(table[name]!, { retry: false, ...edge.options.providers });
      models.set(name, model);
    }
    return model;
  };

  /** Reads the call, checks key and model, embeds; `shape` writes the caller's body. */
  const run = async (c: Context, dialect: Dialect, read: (json: unknown) => EmbedCall, shape: (call: EmbedCall, vectors: number[][], inputTokens: number) => unknown) => {
    const admitted = await edge.admit(c, dialect);
    if (admitted instanceof Response) return admitted;
    let call: EmbedCall;
    try {
      call = read(admitted.json);
    } catch (error) {
      return errorResponse(dialect, 'invalid_request', ParlanceError.from(error, 'invalid_request').message, 400);
    }
    const model = resolve(call.model);
    if (!model) return errorResponse(dialect, 'not_found', `The embedding model "${shown(call.model)}" does not exist or you do not have access to it`, 404);
    const refused = await edge.permit(c, dialect, admitted.principal, call.model);
    if (refused) return refused;
    try {
      const result = await embedMany(model, {
        values: call.values,
        signal: c.req.raw.signal,
        ...(call.dimensions === undefined ? {} : { dimensions: call.dimensions }),
        ...(call.taskType === undefined ? {} : { taskType: call.taskType }),
      });
      return Response.json(shape(call, result.embeddings, result.usage.inputTokens ?? 0));
    } catch (error) {
      const failure = ParlanceError.from(error);
      const headers: Record<string, string> = failure.retryAfterMs === undefined ? {} : { 'retry-after': String(Math.ceil(failure.retryAfterMs / 1000)) };
      return errorResponse(dialect, failure.code, failure.message, failure.status !== undefined && failure.status >= 400 ? failure.status : undefined, headers);
    }
  };

  const openai = getDialect('openai_completions');
  edge.app.post('/v1/embeddings', edge.guard, (c) => {
    let base64 = false;
    return run(
      c,
      openai,
      (json) => {
        const body = json as Record<string, unknown>;
        if (typeof body.model !== 'string') invalid('model must be a string');
        if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64') invalid('encoding_format must be "float" or "base64"');
        base64 = body.encoding_format === 'base64';
        const dimensions = dimensionsOf(body.dimensions, 'dimensions');
        return { model: body.model, values: textList(body.input, 'input'), ...(dimensions === undefined ? {} : { dimensions }) };
      },
      (call, vectors, inputTokens) => ({
        object: 'list',
        data: vectors.map((vector, index) => ({ object: 'embedding', index, embedding: base64 ? base64Floats(vector) : vector })),
        model: call.model,
        usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
      }),
    );
  });

  const ollama = getDialect('ollama_chat');
  const ollamaRead = (field: 'input' | 'prompt') => (json: unknown) => {
    const body = json as Record<string, unknown>;
    if (typeof body.model !== 'string') invalid('model must be a string');
    const dimensions = dimensionsOf(body.dimensions, 'dimensions');
    return { model: body.model, values: textList(body[field], field), ...(dimensions === undefined ? {} : { dimensions }) };
  };
  edge.app.post('/api/embed', edge.guard, (c) =>
    run(c, ollama, ollamaRead('input'), (call, vectors, inputTokens) => ({ model: call.model, embeddings: vectors, total_duration: 0, load_duration: 0, prompt_eval_count: inputTokens })),
  );
  // The older endpoint: one prompt, one `embedding`.
  edge.app.post('/api/embeddings', edge.guard, (c) => run(c, ollama, ollamaRead('prompt'), (_call, vectors) => ({ embedding: vectors[0] ?? [] })));

  const gemini = getDialect('google_gemini');
  return (c, model, method) =>
    run(
      c,
      gemini,
      (json) => {
        const body = json as Record<string, unknown>;
        const requests = method === 'embedContent' ? [body] : (body.requests as unknown[]);
        if (!Array.isArray(requests) || requests.length === 0) invalid('requests must be a non-empty array');
        if (requests.length > MAX_INPUTS) invalid(`requests has more than ${MAX_INPUTS} entries`);
        const first = requests[0] as Record<string, unknown>;
        const dimensions = dimensionsOf(first.outputDimensionality, 'outputDimensionality');
        return {
          model,
          values: requests.map((request, i) => contentText((request as Record<string, unknown>)?.content, `requests[${i}].content`)),
          ...(dimensions === undefined ? {} : { dimensions }),
          ...(typeof first.taskType === 'string' ? { taskType: first.taskType } : {}),
        };
      },
      (_call, vectors) => (method === 'embedContent' ? { embedding: { values: vectors[0] ?? [] } } : { embeddings: vectors.map((values) => ({ values })) }),
    );
}
