/**
 * Embeddings: a small contract (`EmbeddingModel`: one request for one batch) with
 * OpenAI, Google, Mistral, Ollama and OpenAI-compatible servers behind it, and two
 * calls. `embedMany` cuts the inputs into batches no larger than the provider takes
 * (count, and estimated tokens where the provider caps the sum), sends a few at a
 * time, and puts every vector back at its input's position whatever order the batches
 * finish in. Any failed batch fails the call (after the transport's retries) and
 * cancels the batches still running: a result with holes would be silently wrong.
 */
import { addUsage, ParlanceError, type Usage } from '@parlance/protocol';
import type { MediaModelInfo } from '../catalog/media-models.ts';
import { estimateTextTokens } from '../context/estimate-tokens.ts';

/**
 * 
 *
 * @example
 * await embed(model, { value: 'hi', signal: controller.signal });
 */
export interface EmbeddingCallOptions {
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
}

/**
 * Settings every provider maps (or ignores when it has no such setting).
 *
 * @example
 * await embed(model, { value: 'hi', dimensions: 256 });
 */
export interface EmbeddingSettings {
  /** A shorter vector (OpenAI text-embedding-3 `dimensions`, Gemini `outputDimensionality`, Mistral `output_dimension`, Ollama `dimensions`). */
  dimensions?: number;
  /** What the vectors are for (Gemini `taskType`, e.g. 'RETRIEVAL_DOCUMENT'); other providers ignore it. */
  taskType?: string;
  /** Provider-specific fields, merged verbatim into each request body. */
  extra?: Record<string, unknown>;
}

/**
 * One request's answer: one vector per input, in input order.
 *
 * @example
 * const { embeddings } = await model.embedBatch(['a', 'b'], {});
 */
export interface EmbeddingBatch {
  embeddings: number[][];
  usage?: Usage;
}

/**
 * An embedding model: provider, id, catalog info, and how many inputs one request takes.
 *
 * @example
 * const model: EmbeddingModel = ollamaEmbeddingModel('nomic-embed-text');
 */
export interface EmbeddingModel {
  readonly provider: string;
  readonly modelId: string;
  /** What the catalog knows: limits, dimensions, price. */
  readonly info: MediaModelInfo;
  /** The most inputs one request takes. */
  readonly maxBatchSize: number;
  /** The most tokens (summed over the inputs) one request takes, when the provider caps it. */
  readonly maxTokensPerBatch?: number | undefined;
  /** Embeds one batch (at most `maxBatchSize` inputs) in one request. */
  embedBatch(values: string[], settings: EmbeddingSettings, options?: EmbeddingCallOptions): Promise<EmbeddingBatch>;
}

/**
 * 
 *
 * @example
 * const { embedding, usage } = await embed(model, { value: 'hello' });
 */
export interface EmbedResult {
  embedding: number[];
  /** Input tokens (and cost, when the model is priced), as far as the provider reported them. */
  usage: Usage;
}

/**
 * 
 *
 * @example
 * const { embeddings } = await embedMany(model, { values: ['a', 'b'] }); // embeddings[1] is the vector of 'b'
 */
export interface EmbedManyResult {
  /** `embeddings[i]` is the vector of `values[i]`. */
  embeddings: number[][];
  usage: Usage;
  /** How many requests were made. */
  batches: number;
}

/**
 * What `embed` takes: one value, plus settings and a signal.
 *
 * @example
 * const { embedding } = await embed(resolveEmbeddingModel('openai:text-embedding-3-small'), { value: 'sunny day' });
 */
export interface EmbedOptions extends EmbeddingSettings, EmbeddingCallOptions {
  value: string;
}

/**
 * What `embedMany` takes: the values, and how many requests may run at once.
 *
 * @example
 * const { embeddings, batches } = await embedMany(model, { values: docs.map((d) => d.text), maxConcurrency: 2 });
 */
export interface EmbedManyOptions extends EmbeddingSettings, EmbeddingCallOptions {
  values: readonly string[];
  /** Requests in flight at once (default 4). */
  maxConcurrency?: number;
  /** Fewer inputs per request than the provider allows (never more). */
  maxBatchSize?: number;
  /** Called as each batch lands (progress bars). */
  onBatch?: (info: { done: number; total: number; batches: number }) => void;
}

function withCost(model: EmbeddingModel, usage: Usage | undefined): Usage {
  const out: Usage = { ...usage };
  const price = model.info.pricing?.inputTokens;
  if (out.cost === undefined && price !== undefined && out.inputTokens !== undefined) {
    out.cost = Math.round(((out.inputTokens * price) / 1_000_000) * 1e9) / 1e9;
  }
  return out;
}

function checkBatch(model: EmbeddingModel, batch: EmbeddingBatch, expected: number): void {
  if (batch.embeddings.length !== expected) {
    throw new ParlanceError(
      'invalid_response',
      `${model.provider}:${model.modelId} returned ${batch.embeddings.length} embeddings for ${expected} inputs`,
    );
  }
}

function settingsOf(options: EmbeddingSettings): EmbeddingSettings {
  const out: EmbeddingSettings = {};
  if (options.dimensions !== undefined) out.dimensions = options.dimensions;
  if (options.taskType !== undefined) out.taskType = options.taskType;
  if (options.extra !== undefined) out.extra = options.extra;
  return out;
}

function callOptions(options: EmbeddingCallOptions): EmbeddingCallOptions {
  const out: EmbeddingCallOptions = {};
  if (options.signal) out.signal = options.signal;
  if (options.headers) out.headers = options.headers;
  return out;
}

/**
 * Embeds one text.
 *
 * @example
 * ```ts
 * const model = resolveEmbeddingModel('openai:text-embedding-3-small');
 * const { embedding, usage } = await embed(model, { value: 'sunny day at the beach' });
 * ```
 */
export async function embed(model: EmbeddingModel, options: EmbedOptions): Promise<EmbedResult> {
  const batch = await model.embedBatch([options.value], settingsOf(options), callOptions(options));
  checkBatch(model, batch, 1);
  return { embedding: batch.embeddings[0]!, usage: withCost(model, batch.usage) };
}

/** Cuts `values` into runs of at most `size` inputs and `maxTokens` estimated tokens. */
export function planBatches(values: readonly string[], size: number, maxTokens?: number): [start: number, end: number][] {
  const batches: [number, number][] = [];
  let start = 0;
  let tokens = 0;
  for (let i = 0; i < values.length; i++) {
    const cost = maxTokens === undefined ? 0 : estimateTextTokens(values[i]!);
    const full = i - start >= size || (maxTokens !== undefined && i > start && tokens + cost > maxTokens);
    if (full) {
      batches.push([start, i]);
      start = i;
      tokens = 0;
    }
    tokens += cost;
  }
  if (start < values.length) batches.push([start, values.length]);
  return batches;
}

/**
 * Embeds many texts: batched to the provider's limit, a few requests at a time, order kept.
 *
 * @example
 * ```ts
 * const model = resolveEmbeddingModel('google:gemini-embedding-001');
 * const { embeddings, usage, batches } = await embedMany(model, { values: chunks, taskType: 'RETRIEVAL_DOCUMENT' });
 * // embeddings[i] belongs to chunks[i]
 * ```
 */
export async function embedMany(model: EmbeddingModel, options: EmbedManyOptions): Promise<EmbedManyResult> {
  const { values } = options;
  const size = Math.max(1, Math.min(model.maxBatchSize, options.maxBatchSize ?? Infinity));
  const concurrency = Math.max(1, Math.floor(options.maxConcurrency ?? 4));
  const plan = planBatches(values, size, model.maxTokensPerBatch);
  const embeddings: number[][] = new Array(values.length);
  let usage: Usage = {};
  if (plan.length === 0) return { embeddings: [], usage, batches: 0 };

  // One failure cancels the requests still in flight (their answers could not be used).
  const controller = new AbortController();
  const onAbort = () => controller.abort(options.signal?.reason);
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  const call: EmbeddingCallOptions = { signal: controller.signal };
  if (options.headers) call.headers = options.headers;
  const settings = settingsOf(options);

  let next = 0;
  let done = 0;
  let failure: unknown;
  const worker = async () => {
    while (failure === undefined && next < plan.length) {
      const [start, end] = plan[next++]!;
      try {
        const batch = await model.embedBatch(values.slice(start, end), settings, call);
        checkBatch(model, batch, end - start);
        for (let i = 0; i < batch.embeddings.length; i++) embeddings[start + i] = batch.embeddings[i]!;
        usage = addUsage(usage, batch.usage);
        done += end - start;
        options.onBatch?.({ done, total: values.length, batches: plan.length });
      } catch (error) {
        if (failure === undefined) failure = error;
        controller.abort(error);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, plan.length) }, worker));
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }
  if (failure !== undefined) {
    if (options.signal?.aborted) throw new ParlanceError('aborted', 'The embedding request was aborted', { cause: failure });
    throw ParlanceError.from(failure);
  }
  return { embeddings, usage: withCost(model, usage), batches: plan.length };
}
