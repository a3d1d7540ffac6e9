/**
 * Gemini audio through `generateContent`.
 * - Speech: the TTS models with `responseModalities: ['AUDIO']` and a prebuilt voice; the
 *   answer is base64 16-bit PCM (`audio/L16;codec=pcm;rate=24000`).
 *   https://ai.google.dev/gemini-api/docs/speech-generation
 * - Transcription: audio understanding (any Gemini model that takes audio), asked for a
 *   JSON transcript with the language and timed segments through `responseSchema`.
 *   https://ai.google.dev/gemini-api/docs/audio#get-a-transcript
 */
import { modelPathSegment } from '@parlance/dialects';
import { ParlanceError, type Usage } from '@parlance/protocol';
import { type MediaModelInfo, mediaCost } from '../catalog/media-models.ts';
import { mediaModelBase } from '../providers/api-client.ts';
import { google } from '../providers/builtin/index.ts';
import type { ProviderSettings } from '../providers/types.ts';
import { fromBase64, type SpeechModel, type TranscriptionModel, type TranscriptionResult, toBase64 } from './audio-model.ts';
import { pcmToWav, sampleRateOf } from './wav.ts';

interface GeminiAnswer {
  candidates?: { content?: { parts?: { text?: string; thought?: boolean; inlineData?: { mimeType?: string; data?: string } }[] }; finishReason?: string }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number; totalTokenCount?: number };
}

function usageOf(answer: GeminiAnswer, info: MediaModelInfo): Usage {
  const meta = answer.usageMetadata;
  const usage: Usage = {};
  if (meta?.promptTokenCount !== undefined) usage.inputTokens = meta.promptTokenCount;
  if (meta?.candidatesTokenCount !== undefined) usage.outputTokens = meta.candidatesTokenCount;
  if (meta?.totalTokenCount !== undefined) usage.totalTokens = meta.totalTokenCount;
  const cost = mediaCost(info.pricing, usage);
  if (cost !== undefined) usage.cost = cost;
  return usage;
}

function blocked(answer: GeminiAnswer, what: string): ParlanceError {
  const reason = answer.promptFeedback?.blockReason ?? answer.candidates?.[0]?.finishReason;
  if (reason && reason !== 'STOP') return new ParlanceError('content_filter', `Gemini returned no ${what} (${reason})`);
  return new ParlanceError('invalid_response', `Gemini returned no ${what}`);
}

const path = (modelId: string) => `/v1beta/models/${modelPathSegment(modelId)}:generateContent`;

/**
 * A Gemini speech model (`gemini-2.5-flash-preview-tts`). Audio comes back as WAV unless
 * `format: 'pcm'`.
 *
 * @example
 * ```ts
 * const { audio } = await generateSpeech(geminiSpeechModel('gemini-2.5-flash-preview-tts'), { text: 'Say cheerfully: hi!', voice: 'Puck' });
 * ```
 */
export function geminiSpeechModel(modelId: string, settings: ProviderSettings = {}): SpeechModel {
  const { client, base } = mediaModelBase(google.definition, modelId, settings);
  const { info } = base;
  return {
    ...base,
    async generate(request, call = {}) {
      const speechConfig: Record<string, unknown> = { voiceConfig: { prebuiltVoiceConfig: { voiceName: request.voice ?? 'Kore' } } };
      if (request.language !== undefined) speechConfig.languageCode = request.language;
      const body = {
        contents: [{ role: 'user', parts: [{ text: request.instructions ? `${request.instructions}: ${request.text}` : request.text }] }],
        generationConfig: { responseModalities: ['AUDIO'], speechConfig },
        ...request.extra,
      };
      const answer = (await client.postJson(path(modelId), body, call)) as GeminiAnswer;
      const inline = answer.candidates?.[0]?.content?.parts?.find((p) => p.inlineData?.data)?.inlineData;
      if (!inline?.data) throw blocked(answer, 'audio');
      const pcm = fromBase64(inline.data);
      const rawType = inline.mimeType ?? 'audio/L16;codec=pcm;rate=24000';
      const wav = (request.format ?? 'wav') === 'wav' && /^audio\/(l16|pcm)/i.test(rawType);
      return { audio: wav ? pcmToWav(pcm, sampleRateOf(rawType)) : pcm, mediaType: wav ? 'audio/wav' : rawType, usage: usageOf(answer, info) };
    },
  };
}

const TRANSCRIPT_SCHEMA = {
  type: 'OBJECT',
  properties: {
    language: { type: 'STRING', description: 'ISO-639-1 code of the spoken language' },
    text: { type: 'STRING', description: 'The whole transcript, verbatim' },
    segments: {
      type: 'ARRAY',
      items: {
        type: 'OBJECT',
        properties: { start: { type: 'NUMBER' }, end: { type: 'NUMBER' }, text: { type: 'STRING' } },
        required: ['start', 'end', 'text'],
      },
    },
  },
  required: ['text'],
};

const num = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Transcription with a Gemini model that takes audio (`gemini-2.5-flash`).
 *
 * @example
 * ```ts
 * const { text, language, segments } = await transcribe(geminiTranscriptionModel('gemini-2.5-flash'), { audio: bytes, mediaType: 'audio/mp3' });
 * ```
 */
export function geminiTranscriptionModel(modelId: string, settings: ProviderSettings = {}): TranscriptionModel {
  const { client, base } = mediaModelBase(google.definition, modelId, settings);
  const { info } = base;
  return {
    ...base,
    async transcribe(request, call = {}) {
      const data = typeof request.audio === 'string' ? request.audio : toBase64(request.audio);
      let instruction =
        'Transcribe the speech in this audio verbatim. Give the language as an ISO-639-1 code and the transcript in segments of a sentence or so, with start and end times in seconds.';
      if (request.language) instruction += ` The audio is in "${request.language}".`;
      if (request.prompt) instruction += ` Spelling hints: ${request.prompt}`;
      const body = {
        contents: [{ role: 'user', parts: [{ text: instruction }, { inlineData: { mimeType: request.mediaType, data } }] }],
        generationConfig: { responseMimeType: 'application/json', responseSchema: TRANSCRIPT_SCHEMA },
        ...request.extra,
      };
      const answer = (await client.postJson(path(modelId), body, call)) as GeminiAnswer;
      const text = (answer.candidates?.[0]?.content?.parts ?? []).filter((p) => !p.thought && typeof p.text === 'string').map((p) => p.text).join('');
      if (!text) throw blocked(answer, 'transcript');
      let parsed: { text?: unknown; language?: unknown; segments?: { start?: unknown; end?: unknown; text?: unknown }[] } | undefined;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      // A model that ignored the schema still transcribed: keep its text as it is.
      if (!parsed || typeof parsed.text !== 'string') return { text, usage: usageOf(answer, info) };
      const result: TranscriptionResult = { text: parsed.text, usage: usageOf(answer, info) };
      if (typeof parsed.language === 'string' && parsed.language) result.language = parsed.language;
      if (Array.isArray(parsed.segments)) {
        result.segments = parsed.segments
          .filter((s) => num(s.start) && num(s.end) && typeof s.text === 'string')
          .map((s) => ({ start: s.start as number, end: s.end as number, text: s.text as string }));
      }
      return result;
    },
  };
}
