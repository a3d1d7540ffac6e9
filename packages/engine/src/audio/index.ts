export {
  type AudioCallOptions,
  generateSpeech,
  type SpeechModel,
  type SpeechRequest,
  type SpeechResult,
  type TranscriptionModel,
  type TranscriptionRequest,
  type TranscriptionResult,
  type TranscriptionSegment,
  type TranscriptionWord,
  transcribe,
} from './audio-model.ts';
export { geminiSpeechModel, geminiTranscriptionModel } from './gemini-audio.ts';
export { openaiSpeechModel, openaiTranscriptionModel } from './openai-audio.ts';
export { resolveSpeechModel, resolveTranscriptionModel } from './resolve-audio-model.ts';
export { pcmToWav } from './wav.ts';
