/**
 * Models that are not chat models: which kind each one is (embedding, speech,
 * transcription, moderation), the request limits their APIs document, and their
 * prices. models.json (generated from models.dev) lists chat models only, so this
 * table is kept by hand from the providers' own pages:
 * - OpenAI: https://platform.openai.com/docs/pricing, limits in the API reference
 *   (https://platform.openai.com/docs/api-reference/embeddings/create: at most 2048
 *   inputs and 300,000 tokens summed over the inputs of one request).
 * - Google: https://ai.google.dev/gemini-api/docs/pricing; `batchEmbedContents` takes at
 *   most 100 requests (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents).
 * - Mistral: https://mistral.ai/pricing; the embeddings endpoint answers "Too many inputs
 *   in request, split into more batches" above 256 inputs (https://docs.mistral.ai/api/endpoint/embeddings).
 * A model this table does not know still works with the defaults of its provider.
 */

/**
 * The kinds of non-chat model the engine calls.
 *
 * @example
 * listMediaModels('openai', 'embedding' satisfies MediaKind);
 */
export type MediaKind = 'embedding' | 'speech' | 'transcription' | 'moderation';

/**
 * US dollars; each field is a way the provider bills.
 *
 * @example
 * const { pricing } = getMediaModelInfo('openai', 'whisper-1');
 */
export interface MediaPricing {
  /** Per million input (text or audio) tokens. */
  inputTokens?: number;
  /** Per million output tokens (audio tokens for speech). */
  outputTokens?: number;
  /** Per million input characters (OpenAI tts-1). */
  characters?: number;
  /** Per minute of audio (OpenAI transcription). */
  minutes?: number;
}

/**
 * What the engine knows about a non-chat model: its kinds, request limits and prices.
 *
 * @example
 * const info = getMediaModelInfo('openai', 'text-embedding-3-small');
 */
export interface MediaModelInfo {
  provider: string;
  id: string;
  /** False when the table has no entry and the values are the provider's defaults. */
  known: boolean;
  kinds: MediaKind[];
  /** Embeddings: the most inputs one request takes. */
  maxBatchSize?: number;
  /** Embeddings: the most tokens, summed over the inputs, one request takes. */
  maxTokensPerRequest?: number;
  /** Embeddings: the vector length by default. */
  dimensions?: number;
  pricing?: MediaPricing;
}

type Entry = Omit<MediaModelInfo, 'provider' | 'id' | 'known'>;

const OPENAI_EMBEDDING = { kinds: ['embedding'], maxBatchSize: 2048, maxTokensPerRequest: 300_000 } satisfies Entry;

const TABLE: Record<string, Record<string, Entry>> = {
  openai: {
    'text-embedding-3-small': { ...OPENAI_EMBEDDING, dimensions: 1536, pricing: { inputTokens: 0.02 } },
    'text-embedding-3-large': { ...OPENAI_EMBEDDING, dimensions: 3072, pricing: { inputTokens: 0.13 } },
    'text-embedding-ada-002': { ...OPENAI_EMBEDDING, dimensions: 1536, pricing: { inputTokens: 0.1 } },
    'tts-1': { kinds: ['speech'], pricing: { characters: 15 } },
    'tts-1-hd': { kinds: ['speech'], pricing: { characters: 30 } },
    'gpt-4o-mini-tts': { kinds: ['speech'], pricing: { inputTokens: 0.6, outputTokens: 12 } },
    'whisper-1': { kinds: ['transcription'], pricing: { minutes: 0.006 } },
    'gpt-4o-transcribe': { kinds: ['transcription'], pricing: { inputTokens: 2.5, outputTokens: 10 } },
    'gpt-4o-mini-transcribe': { kinds: ['transcription'], pricing: { inputTokens: 1.25, outputTokens: 5 } },
    'omni-moderation-latest': { kinds: ['moderation'], pricing: {} },
    'omni-moderation-2024-09-26': { kinds: ['moderation'], pricing: {} },
    'text-moderation-latest': { kinds: ['moderation'], pricing: {} },
    'text-moderation-stable': { kinds: ['moderation'], pricing: {} },
  },
  google: {
    'gemini-embedding-001': { kinds: ['embedding'], maxBatchSize: 100, dimensions: 3072, pricing: { inputTokens: 0.15 } },
    'text-embedding-004': { kinds: ['embedding'], maxBatchSize: 100, dimensions: 768 },
    'gemini-2.5-flash-preview-tts': { kinds: ['speech'], pricing: { inputTokens: 0.5, outputTokens: 10 } },
    'gemini-2.5-pro-preview-tts': { kinds: ['speech'], pricing: { inputTokens: 1, outputTokens: 20 } },
    // Transcription is audio understanding through generateContent; audio input has its own price.
    'gemini-2.5-flash': { kinds: ['transcription'], pricing: { inputTokens: 1, outputTokens: 2.5 } },
    'gemini-2.5-flash-lite': { kinds: ['transcription'], pricing: { inputTokens: 0.3, outputTokens: 0.4 } },
    'gemini-2.5-pro': { kinds: ['transcription'], pricing: { inputTokens: 1.25, outputTokens: 10 } },
  },
  mistral: {
    'mistral-embed': { kinds: ['embedding'], maxBatchSize: 256, dimensions: 1024, pricing: { inputTokens: 0.1 } },
    'codestral-embed': { kinds: ['embedding'], maxBatchSize: 256, dimensions: 1536, pricing: { inputTokens: 0.15 } },
  },
};

/** What a provider's unknown models get: the provider's documented request limits, no price. */
const PROVIDER_DEFAULTS: Record<string, Partial<Entry>> = {
  openai: { maxBatchSize: 2048, maxTokensPerRequest: 300_000 },
  google: { maxBatchSize: 100 },
  mistral: { maxBatchSize: 256 },
  // Ollama documents no limit; a batch this size keeps one request's body small.
  ollama: { maxBatchSize: 512 },
};

/**
 * Looks a non-chat model up; unknown models get their provider's defaults and every kind.
 *
 * @example
 * ```ts
 * getMediaModelInfo('openai', 'text-embedding-3-small'); // { kinds: ['embedding'], maxBatchSize: 2048, dimensions: 1536, pricing: { inputTokens: 0.02 }, … }
 * ```
 */
export function getMediaModelInfo(provider: string, modelId: string): MediaModelInfo {
  const entry = TABLE[provider]?.[modelId] ?? TABLE[provider]?.[modelId.replace(/-(\d{4}-\d{2}-\d{2}|\d{8})$/, '')];
  if (entry) return { provider, id: modelId, known: true, ...PROVIDER_DEFAULTS[provider], ...entry, kinds: [...entry.kinds] };
  return { provider, id: modelId, known: false, kinds: ['embedding', 'speech', 'transcription', 'moderation'], ...PROVIDER_DEFAULTS[provider] };
}

/**
 * The model ids the table lists for a provider and kind.
 *
 * @example
 * ```ts
 * listMediaModels('openai', 'transcription'); // ['whisper-1', 'gpt-4o-transcribe', 'gpt-4o-mini-transcribe']
 * ```
 */
export function listMediaModels(provider: string, kind: MediaKind): string[] {
  return Object.entries(TABLE[provider] ?? {})
    .filter(([, entry]) => entry.kinds.includes(kind))
    .map(([id]) => id);
}

/** US dollars for one call, from whatever the provider measured; undefined when nothing is priced. */
export function mediaCost(
  pricing: MediaPricing | undefined,
  measured: { inputTokens?: number | undefined; outputTokens?: number | undefined; characters?: number | undefined; seconds?: number | undefined },
): number | undefined {
  if (!pricing) return undefined;
  let dollars = 0;
  let priced = false;
  const add = (price: number | undefined, amount: number | undefined, per: number) => {
    if (price === undefined || amount === undefined) return;
    dollars += (amount * price) / per;
    priced = true;
  };
  add(pricing.inputTokens, measured.inputTokens, 1_000_000);
  add(pricing.outputTokens, measured.outputTokens, 1_000_000);
  add(pricing.characters, measured.characters, 1_000_000);
  add(pricing.minutes, measured.seconds, 60);
  // Free models (moderation) cost exactly 0 once anything was measured.
  if (!priced && Object.keys(pricing).length === 0) return 0;
  return priced ? Math.round(dollars * 1e9) / 1e9 : undefined;
}

/** Throws unless the model can do `kind` (a model the table does not know is assumed to). */
export function assertKind(info: MediaModelInfo, kind: MediaKind, error: (message: string) => Error): void {
  if (info.known && !info.kinds.includes(kind)) {
    throw error(`${info.provider}:${info.id} is not a ${kind} model (it is: ${info.kinds.join(', ')})`);
  }
}
