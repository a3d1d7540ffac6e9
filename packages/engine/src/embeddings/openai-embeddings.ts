/**
 * The `/embeddings` endpoint of OpenAI and of the servers that copy it (Mistral, vLLM,
 * LM Studio, llama.cpp, proxies).
 * - OpenAI: https://platform.openai.com/docs/api-reference/embeddings/create. Vectors are
 *   asked for as base64 (`encoding_format: 'base64'`, little-endian float32), as OpenAI's
 *   own SDKs do: a quarter of the bytes of the JSON numbers and no float parsing.
 * - Mistral: https://docs.mistral.ai/api/endpoint/embeddings (`output_dimension`, floats).
 * - OpenAI-compatible servers: floats, the one format they all return.
 * `data[].index` says which input a vector belongs to; answers are put back in that order.
 */
import { ParlanceError, type Usage } from '@parlance/protocol';
import { type ApiEndpoint, arrayField, mediaModelBase } from '../providers/api-client.ts';
import { mistral, openai } from '../providers/builtin/index.ts';
import type { ProviderSettings } from '../providers/types.ts';
import type { EmbeddingBatch, EmbeddingModel } from './embedding-model.ts';

/**
 * 
 *
 * @example
 * openaiEmbeddingModel('text-embedding-3-small', { maxBatchSize: 256 });
 */
export interface OpenAIStyleEmbeddingOptions extends ProviderSettings {
  /** Fewer inputs per request than the provider's limit. */
  maxBatchSize?: number;
}

interface Flavor {
  /** The request field for a shorter vector. */
  dimensionsField: 'dimensions' | 'output_dimension';
  base64: boolean;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const LOOKUP = new Int16Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) LOOKUP[ALPHABET.charCodeAt(i)] = i;
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Little-endian float32 bytes, base64-encoded, as numbers. Never `atob`: Node's is several
 * times slower than a table, and 10,000 vectors of 1,536 floats are 80 MB of base64 (see
 * bench/embed-many.bench.ts).
 */
export function decodeFloat32Base64(data: string): number[] {
  const bytes = base64Bytes(data);
  const count = bytes.length / 4;
  const out = new Array<number>(count);
  if (LITTLE_ENDIAN && bytes.byteOffset % 4 === 0) {
    const floats = new Float32Array(bytes.buffer, bytes.byteOffset, count);
    for (let i = 0; i < count; i++) out[i] = floats[i]!;
  } else {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.length);
    for (let i = 0; i < count; i++) out[i] = view.getFloat32(i * 4, true);
  }
  return out;
}

/** Node's (and Bun's) native decoder where there is one: several times faster than any JS loop. */
const NativeBuffer = (globalThis as { Buffer?: { from(data: string, encoding: 'base64'): Uint8Array } }).Buffer;

/** Base64 to bytes: natively where the runtime has Buffer, else with the table (browsers, Workers). */
export function base64Bytes(data: string, native = NativeBuffer !== undefined): Uint8Array {
  if (data.length % 4 !== 0) throw new ParlanceError('invalid_response', 'A base64 embedding is not a whole number of float32 values');
  if (native && NativeBuffer && /^[A-Za-z0-9+/]*={0,2}$/.test(data)) {
    const bytes = NativeBuffer.from(data, 'base64');
    if (bytes.length % 4 !== 0) throw new ParlanceError('invalid_response', 'A base64 embedding is not a whole number of float32 values');
    return bytes;
  }
  let end = data.length;
  while (end > 0 && data.charCodeAt(end - 1) === 61 /* = */) end--;
  const size = Math.floor((end * 3) / 4);
  if (size % 4 !== 0 || data.length % 4 !== 0) throw new ParlanceError('invalid_response', 'A base64 embedding is not a whole number of float32 values');
  const bytes = new Uint8Array(size);
  let at = 0;
  for (let i = 0; i < end; i += 4) {
    const a = LOOKUP[data.charCodeAt(i)] ?? -1;
    const b = LOOKUP[data.charCodeAt(i + 1)] ?? -1;
    const c = i + 2 < end ? (LOOKUP[data.charCodeAt(i + 2)] ?? -1) : 0;
    const d = i + 3 < end ? (LOOKUP[data.charCodeAt(i + 3)] ?? -1) : 0;
    if ((a | b | c | d) < 0) throw new ParlanceError('invalid_response', 'A base64 embedding holds a character outside base64');
    const n = (a << 18) | (b << 12) | (c << 6) | d;
    bytes[at++] = n >> 16;
    if (at < size) bytes[at++] = (n >> 8) & 0xff;
    if (at < size) bytes[at++] = n & 0xff;
  }
  return bytes;
}

function createOpenAIStyle(endpoint: ApiEndpoint, catalogProvider: string, modelId: string, options: OpenAIStyleEmbeddingOptions, flavor: Flavor): EmbeddingModel {
  const { maxBatchSize, ...settings } = options;
  const { client, base } = mediaModelBase(endpoint, modelId, settings, catalogProvider);
  const { info } = base;
  const limit = Math.max(1, Math.min(info.maxBatchSize ?? 2048, maxBatchSize ?? Infinity));
  return {
    ...base,
    maxBatchSize: limit,
    maxTokensPerBatch: info.maxTokensPerRequest,
    async embedBatch(values, request, call = {}): Promise<EmbeddingBatch> {
      const body: Record<string, unknown> = { model: modelId, input: values };
      if (flavor.base64) body.encoding_format = 'base64';
      if (request.dimensions !== undefined) body[flavor.dimensionsField] = request.dimensions;
      Object.assign(body, request.extra);
      const answer = await client.postJson('/embeddings', body, call);
      const data = arrayField(answer, 'data', client.providerName) as { index?: number; embedding?: unknown }[];
      const embeddings: number[][] = new Array(data.length);
      data.forEach((item, position) => {
        const index = typeof item?.index === 'number' ? item.index : position;
        const vector = typeof item?.embedding === 'string' ? decodeFloat32Base64(item.embedding) : item?.embedding;
        if (!Array.isArray(vector) || index < 0 || index >= data.length || embeddings[index] !== undefined) {
          throw new ParlanceError('invalid_response', `${client.providerName} returned an unreadable embedding at data[${position}]`);
        }
        embeddings[index] = vector as number[];
      });
      const result: EmbeddingBatch = { embeddings };
      const raw = answer.usage as { prompt_tokens?: number; total_tokens?: number } | undefined;
      if (raw) {
        const usage: Usage = {};
        if (typeof raw.prompt_tokens === 'number') usage.inputTokens = raw.prompt_tokens;
        if (typeof raw.total_tokens === 'number') usage.totalTokens = raw.total_tokens;
        result.usage = usage;
      }
      return result;
    },
  };
}

/**
 * OpenAI embeddings (`text-embedding-3-small`, `-large`, `ada-002`): up to 2048 inputs and
 * 300,000 tokens a request. The key comes from `apiKey` or `OPENAI_API_KEY`.
 *
 * @example
 * ```ts
 * const model = openaiEmbeddingModel('text-embedding-3-small', { retry: { maxRetries: 4 } });
 * const { embeddings } = await embedMany(model, { values: docs, dimensions: 512 });
 * ```
 */
export function openaiEmbeddingModel(modelId: string, options: OpenAIStyleEmbeddingOptions = {}): EmbeddingModel {
  return createOpenAIStyle(openai.definition, 'openai', modelId, options, { dimensionsField: 'dimensions', base64: true });
}

/**
 * Mistral embeddings (`mistral-embed`, `codestral-embed`): up to 256 inputs a request.
 * The key comes from `apiKey` or `MISTRAL_API_KEY`.
 *
 * @example
 * ```ts
 * const { embedding } = await embed(mistralEmbeddingModel('mistral-embed'), { value: 'bonjour' });
 * ```
 */
export function mistralEmbeddingModel(modelId: string, options: OpenAIStyleEmbeddingOptions = {}): EmbeddingModel {
  return createOpenAIStyle(mistral.definition, 'mistral', modelId, options, { dimensionsField: 'output_dimension', base64: false });
}

/**
 * 
 *
 * @example
 * openaiCompatibleEmbeddingModel('bge-m3', { baseURL: 'http://127.0.0.1:8080/v1' });
 */
export interface OpenAICompatibleEmbeddingOptions extends OpenAIStyleEmbeddingOptions {
  baseURL: string;
  /** The provider id in results and errors (default 'openai-compatible'). */
  id?: string;
  name?: string;
  /** Environment variables to read the key from; the key is optional unless `requireApiKey`. */
  apiKeyEnv?: string | string[];
  requireApiKey?: boolean;
}

/**
 * Any server with an OpenAI-style `/embeddings` endpoint (vLLM, LM Studio, llama.cpp, a
 * proxy). Its batch limit is unknown: 2048 (OpenAI's) unless `maxBatchSize` says less.
 *
 * @example
 * ```ts
 * const model = openaiCompatibleEmbeddingModel('bge-m3', { baseURL: 'http://127.0.0.1:8000/v1', maxBatchSize: 64 });
 * ```
 */
export function openaiCompatibleEmbeddingModel(modelId: string, options: OpenAICompatibleEmbeddingOptions): EmbeddingModel {
  const { id, name, apiKeyEnv, requireApiKey, ...settings } = options;
  const endpoint: ApiEndpoint = {
    id: id ?? 'openai-compatible',
    name: name ?? id ?? 'OpenAI-compatible server',
    baseURL: options.baseURL,
    auth: apiKeyEnv === undefined ? { optional: !requireApiKey } : { env: apiKeyEnv, optional: !requireApiKey },
  };
  return createOpenAIStyle(endpoint, endpoint.id, modelId, settings, { dimensionsField: 'dimensions', base64: false });
}
