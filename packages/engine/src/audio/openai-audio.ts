/**
 * OpenAI audio.
 * - Speech: https://platform.openai.com/docs/api-reference/audio/createSpeech (JSON in, audio bytes out).
 * - Transcription: https://platform.openai.com/docs/api-reference/audio/createTranscription
 *   (multipart). whisper-1 is asked for `verbose_json` with segment timestamps, which
 *   carries the language, the duration and the segments; the gpt-4o transcribe models
 *   answer `json` only (text and token usage).
 */
import { ParlanceError, type Usage } from '@parlance/protocol';
import { mediaCost } from '../catalog/media-models.ts';
import { mediaModelBase } from '../providers/api-client.ts';
import { openai } from '../providers/builtin/index.ts';
import type { ProviderSettings } from '../providers/types.ts';
import { filenameFor, fromBase64, type SpeechModel, type TranscriptionModel, type TranscriptionResult } from './audio-model.ts';

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/opus',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/L16;codec=pcm;rate=24000',
};

/**
 * An OpenAI speech model (`gpt-4o-mini-tts`, `tts-1`, `tts-1-hd`). The key comes from
 * `apiKey` or `OPENAI_API_KEY`.
 *
 * @example
 * ```ts
 * const { audio } = await generateSpeech(openaiSpeechModel('tts-1'), { text: 'Hello', voice: 'nova', format: 'opus' });
 * ```
 */
export function openaiSpeechModel(modelId: string, settings: ProviderSettings = {}): SpeechModel {
  const { client, base } = mediaModelBase(openai.definition, modelId, settings);
  const { info } = base;
  return {
    ...base,
    async generate(request, call = {}) {
      const format = request.format ?? 'mp3';
      const body: Record<string, unknown> = { model: modelId, input: request.text, voice: request.voice ?? 'alloy', response_format: format };
      if (request.speed !== undefined) body.speed = request.speed;
      if (request.instructions !== undefined) body.instructions = request.instructions;
      Object.assign(body, request.extra);
      const answer = await client.postBinary('/audio/speech', body, call);
      if (answer.bytes.length === 0) throw new ParlanceError('invalid_response', 'OpenAI returned no audio');
      const usage: Usage = {};
      const cost = mediaCost(info.pricing?.characters === undefined ? undefined : info.pricing, { characters: request.text.length });
      if (cost !== undefined) usage.cost = cost;
      const mediaType = answer.mediaType && !answer.mediaType.startsWith('application/') ? answer.mediaType : (SPEECH_TYPES[format] ?? 'application/octet-stream');
      return { audio: answer.bytes, mediaType, usage };
    },
  };
}

interface Verbose {
  text?: unknown;
  language?: unknown;
  duration?: unknown;
  segments?: { start?: unknown; end?: unknown; text?: unknown }[];
  words?: { word?: unknown; start?: unknown; end?: unknown }[];
  usage?: { type?: string; seconds?: number; input_tokens?: number; output_tokens?: number; total_tokens?: number };
}

const num = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * An OpenAI transcription model (`whisper-1`, `gpt-4o-transcribe`, `gpt-4o-mini-transcribe`).
 *
 * @example
 * ```ts
 * const { text, segments } = await transcribe(openaiTranscriptionModel('whisper-1'), { audio: bytes, mediaType: 'audio/webm' });
 * ```
 */
export function openaiTranscriptionModel(modelId: string, settings: ProviderSettings = {}): TranscriptionModel {
  const { client, base } = mediaModelBase(openai.definition, modelId, settings);
  const { info } = base;
  const verbose = modelId.startsWith('whisper');
  return {
    ...base,
    async transcribe(request, call = {}) {
      const bytes = typeof request.audio === 'string' ? fromBase64(request.audio) : request.audio;
      const form = new FormData();
      form.append('file', new Blob([bytes as Uint8Array<ArrayBuffer>], { type: request.mediaType }), filenameFor(request));
      form.append('model', modelId);
      form.append('response_format', verbose ? 'verbose_json' : 'json');
      if (verbose) {
        form.append('timestamp_granularities[]', 'segment');
        if (request.words) form.append('timestamp_granularities[]', 'word');
      }
      if (request.language !== undefined) form.append('language', request.language);
      if (request.prompt !== undefined) form.append('prompt', request.prompt);
      for (const [key, value] of Object.entries(request.extra ?? {})) form.append(key, typeof value === 'string' ? value : JSON.stringify(value));
      const answer = (await client.postJson('/audio/transcriptions', form, call)) as Verbose;
      if (typeof answer.text !== 'string') throw new ParlanceError('invalid_response', 'OpenAI returned a transcription without text');
      const result: TranscriptionResult = { text: answer.text, usage: {} };
      if (typeof answer.language === 'string') result.language = answer.language;
      if (num(answer.duration)) result.durationSeconds = answer.duration;
      if (Array.isArray(answer.segments)) {
        result.segments = answer.segments
          .filter((s) => num(s.start) && num(s.end) && typeof s.text === 'string')
          .map((s) => ({ start: s.start as number, end: s.end as number, text: s.text as string }));
      }
      if (Array.isArray(answer.words)) {
        result.words = answer.words
          .filter((w) => typeof w.word === 'string' && num(w.start) && num(w.end))
          .map((w) => ({ word: w.word as string, start: w.start as number, end: w.end as number }));
      }
      const raw = answer.usage;
      const usage: Usage = {};
      if (raw?.type === 'tokens') {
        if (num(raw.input_tokens)) usage.inputTokens = raw.input_tokens;
        if (num(raw.output_tokens)) usage.outputTokens = raw.output_tokens;
        if (num(raw.total_tokens)) usage.totalTokens = raw.total_tokens;
      }
      const seconds = raw?.type === 'duration' && num(raw.seconds) ? raw.seconds : result.durationSeconds;
      const cost = mediaCost(info.pricing, { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens, seconds: info.pricing?.minutes === undefined ? undefined : seconds });
      if (cost !== undefined) usage.cost = cost;
      result.usage = usage;
      return result;
    },
  };
}
