import { splitSpec } from '../media/split-spec.ts';
import type { ProviderSettings } from '../providers/types.ts';
import type { SpeechModel, TranscriptionModel } from './audio-model.ts';
import { geminiSpeechModel, geminiTranscriptionModel } from './gemini-audio.ts';
import { openaiSpeechModel, openaiTranscriptionModel } from './openai-audio.ts';

/**
 * A speech model from 'openai:<model>' or 'google:<model>' (also 'gemini:').
 *
 * @example
 * ```ts
 * const model = resolveSpeechModel('google:gemini-2.5-flash-preview-tts', { env: c.env });
 * ```
 */
export function resolveSpeechModel(spec: string | SpeechModel, settings: ProviderSettings = {}): SpeechModel {
  if (typeof spec !== 'string') return spec;
  const { provider, modelId } = splitSpec(spec, 'speech', ['openai', 'google']);
  return provider === 'openai' ? openaiSpeechModel(modelId, settings) : geminiSpeechModel(modelId, settings);
}

/**
 * A transcription model from 'openai:<model>' or 'google:<model>' (also 'gemini:').
 *
 * @example
 * ```ts
 * const model = resolveTranscriptionModel('openai:gpt-4o-mini-transcribe');
 * ```
 */
export function resolveTranscriptionModel(spec: string | TranscriptionModel, settings: ProviderSettings = {}): TranscriptionModel {
  if (typeof spec !== 'string') return spec;
  const { provider, modelId } = splitSpec(spec, 'transcription', ['openai', 'google']);
  return provider === 'openai' ? openaiTranscriptionModel(modelId, settings) : geminiTranscriptionModel(modelId, settings);
}
