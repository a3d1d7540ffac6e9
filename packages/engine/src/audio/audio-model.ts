/**
 * Speech (text to audio) and transcription (audio to text): one small contract each,
 * OpenAI and Gemini behind them, over the same transport as the chat models.
 */
import type { Usage } from '@parlance/protocol';
import type { MediaModelInfo } from '../catalog/media-models.ts';

/**
 * Per-call options of the audio functions: a signal and extra headers.
 *
 * @example
 * await transcribe(model, { audio, mediaType: 'audio/wav', signal: AbortSignal.timeout(60_000) });
 */
export interface AudioCallOptions {
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
}

/**
 * What `generateSpeech` takes: the text, a voice, a format.
 *
 * @example
 * const { audio, mediaType } = await generateSpeech(resolveSpeechModel('openai:gpt-4o-mini-tts'), { text: 'Hello!', voice: 'coral' });
 */
export interface SpeechRequest {
  text: string;
  /** A voice name: OpenAI 'alloy', 'coral', …; Gemini 'Kore', 'Puck', … (defaults: 'alloy', 'Kore'). */
  voice?: string;
  /**
   * The audio format. OpenAI: 'mp3' (default), 'opus', 'aac', 'flac', 'wav', 'pcm'.
   * Gemini returns raw 16-bit PCM: 'wav' (default) wraps it in a WAV header, 'pcm' keeps it raw.
   */
  format?: string;
  /** OpenAI: 0.25 to 4. */
  speed?: number;
  /** How to speak (OpenAI gpt-4o-mini-tts `instructions`; for Gemini, put it in the text). */
  instructions?: string;
  /** BCP-47 language (Gemini `languageCode`). */
  language?: string;
  /** Provider-specific fields, merged verbatim into the body. */
  extra?: Record<string, unknown>;
}

/**
 * 
 *
 * @example
 * await writeFile(`hello.${result.mediaType === 'audio/mpeg' ? 'mp3' : 'wav'}`, result.audio);
 */
export interface SpeechResult {
  audio: Uint8Array;
  /** e.g. 'audio/mpeg', 'audio/wav', 'audio/L16;codec=pcm;rate=24000'. */
  mediaType: string;
  /** Tokens where the provider reports them; `cost` when the model is priced. */
  usage: Usage;
}

/**
 * A text-to-speech model (what `generateSpeech` calls).
 *
 * @example
 * const model: SpeechModel = resolveSpeechModel('google:gemini-2.5-flash-preview-tts');
 */
export interface SpeechModel {
  readonly provider: string;
  readonly modelId: string;
  readonly info: MediaModelInfo;
  generate(request: SpeechRequest, options?: AudioCallOptions): Promise<SpeechResult>;
}

/**
 * What `transcribe` takes: the audio (bytes or base64) and its media type.
 *
 * @example
 * const { text } = await transcribe(resolveTranscriptionModel('openai:whisper-1'), { audio: await readFile('memo.webm'), mediaType: 'audio/webm' });
 */
export interface TranscriptionRequest {
  /** The audio: bytes, or base64 text. */
  audio: Uint8Array | string;
  /** e.g. 'audio/mpeg', 'audio/wav', 'audio/webm'. */
  mediaType: string;
  /** The upload's file name (OpenAI identifies the format by its extension; default from mediaType). */
  filename?: string;
  /** ISO-639-1 language of the audio, when known (improves accuracy). */
  language?: string;
  /** Spelling and style hints (names, terms). */
  prompt?: string;
  /** Word timestamps as well as segments (OpenAI whisper-1). */
  words?: boolean;
  extra?: Record<string, unknown>;
}

/**
 * 
 *
 * @example
 * for (const s of result.segments ?? []) console.log(`${s.start}-${s.end}: ${s.text}`);
 */
export interface TranscriptionSegment {
  /** Seconds from the start of the audio. */
  start: number;
  end: number;
  text: string;
}

/**
 * 
 *
 * @example
 * const firstWord = result.words?.[0]?.word;
 */
export interface TranscriptionWord {
  word: string;
  start: number;
  end: number;
}

/**
 * 
 *
 * @example
 * const { text, language, segments } = await transcribe(model, { audio, mediaType: 'audio/wav' });
 */
export interface TranscriptionResult {
  text: string;
  /** The language as the provider names it (whisper-1: 'english'; Gemini: an ISO-639-1 code), when returned. */
  language?: string;
  durationSeconds?: number;
  /** Timed segments, when the provider returns them (whisper-1, Gemini). */
  segments?: TranscriptionSegment[];
  words?: TranscriptionWord[];
  usage: Usage;
}

/**
 * A speech-to-text model (what `transcribe` calls).
 *
 * @example
 * const model: TranscriptionModel = resolveTranscriptionModel('openai:gpt-4o-transcribe');
 */
export interface TranscriptionModel {
  readonly provider: string;
  readonly modelId: string;
  readonly info: MediaModelInfo;
  transcribe(request: TranscriptionRequest, options?: AudioCallOptions): Promise<TranscriptionResult>;
}

function split<T extends object>(request: T & AudioCallOptions): [Omit<T, 'signal' | 'headers'>, AudioCallOptions] {
  const { signal, headers, ...rest } = request;
  const call: AudioCallOptions = {};
  if (signal) call.signal = signal;
  if (headers) call.headers = headers;
  return [rest as Omit<T, 'signal' | 'headers'>, call];
}

/**
 * Text to audio.
 *
 * @example
 * ```ts
 * const { audio, mediaType } = await generateSpeech(resolveSpeechModel('openai:gpt-4o-mini-tts'), {
 *   text: 'Your order has shipped.',
 *   voice: 'coral',
 * });
 * ```
 */
export function generateSpeech(model: SpeechModel, request: SpeechRequest & AudioCallOptions): Promise<SpeechResult> {
  const [rest, call] = split(request);
  return model.generate(rest, call);
}

/**
 * Audio to text, with segments and the language where the provider returns them.
 *
 * @example
 * ```ts
 * const { text, segments, language } = await transcribe(resolveTranscriptionModel('openai:whisper-1'), {
 *   audio: bytes,
 *   mediaType: 'audio/mpeg',
 * });
 * ```
 */
export function transcribe(model: TranscriptionModel, request: TranscriptionRequest & AudioCallOptions): Promise<TranscriptionResult> {
  const [rest, call] = split(request);
  return model.transcribe(rest, call);
}

/** Bytes from base64 (atob: browsers, Node, workers). */
export function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Base64 from bytes, in slices so a long recording does not overflow the argument list. */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

const EXTENSIONS: Record<string, string> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/mp4': 'mp4',
  'audio/m4a': 'm4a',
  'audio/x-m4a': 'm4a',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/webm': 'webm',
  'audio/ogg': 'ogg',
  'audio/flac': 'flac',
};

export function filenameFor(request: Pick<TranscriptionRequest, 'filename' | 'mediaType'>): string {
  if (request.filename) return request.filename;
  const base = request.mediaType.split(';')[0]!.trim().toLowerCase();
  return `audio.${EXTENSIONS[base] ?? base.split('/')[1] ?? 'bin'}`;
}
