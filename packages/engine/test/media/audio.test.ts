/**
 * Speech and transcription against a local server speaking OpenAI's audio endpoints and
 * Gemini's generateContent; request bodies (JSON or multipart) checked against the
 * published schemas.
 */
import { describe, expect, it } from 'vitest';
import {
  geminiTranscriptionModel,
  generateSpeech,
  openaiSpeechModel,
  openaiTranscriptionModel,
  resolveSpeechModel,
  resolveTranscriptionModel,
  transcribe,
} from '../../src/index.ts';
import { sendJson, serverPerTest } from '../providers/server.ts';
import { expectValid, expectValidGoogle, formOf, OPENAI_SCHEMA } from './media-wire.ts';

const serve = serverPerTest();
const AUDIO = new Uint8Array([0x49, 0x44, 0x33, 0x04, 0x00, 0xff, 0xfb, 0x90, 0x00, 0x80, 0x7f, 0x01]);

/** A form as the JSON object the OpenAPI schema describes (a file is a binary string there). */
async function formAsObject(form: FormData): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    const name = key.endsWith('[]') ? key.slice(0, -2) : key;
    const item = typeof value === 'string' ? value : '<binary>';
    if (key.endsWith('[]')) out[name] = [...((out[name] as unknown[]) ?? []), item];
    else out[name] = item;
  }
  return out;
}

describe('OpenAI speech', () => {
  it('posts the published JSON body and returns the audio bytes, typed, with the character price', async () => {
    const server = await serve((req, res) => {
      expectValid(OPENAI_SCHEMA, 'CreateSpeechRequest', req.body);
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.end(Buffer.from(AUDIO));
    });
    const model = resolveSpeechModel('openai:tts-1', { baseURL: server.url, apiKey: 'sk' });
    const result = await generateSpeech(model, { text: 'Hello there', voice: 'nova', speed: 1.25 });
    expect(server.requests[0]!.url).toBe('/audio/speech');
    expect(server.requests[0]!.body).toEqual({ model: 'tts-1', input: 'Hello there', voice: 'nova', response_format: 'mp3', speed: 1.25 });
    expect(result.audio).toEqual(AUDIO);
    expect(result.mediaType).toBe('audio/mpeg');
    expect(result.usage.cost).toBeCloseTo((11 * 15) / 1e6, 12);
  });

  it('instructions for gpt-4o-mini-tts; an error body is a typed error', async () => {
    const server = await serve((req, res, index) => {
      if (index === 1) return sendJson(res, 400, { error: { message: 'Invalid voice', type: 'invalid_request_error' } });
      expectValid(OPENAI_SCHEMA, 'CreateSpeechRequest', req.body);
      res.writeHead(200, { 'content-type': 'audio/wav' });
      res.end(Buffer.from(AUDIO));
    });
    const model = openaiSpeechModel('gpt-4o-mini-tts', { baseURL: server.url, apiKey: 'sk' });
    const result = await generateSpeech(model, { text: 'Hi', instructions: 'Whisper.', format: 'wav' });
    expect(server.requests[0]!.body.instructions).toBe('Whisper.');
    expect(result.mediaType).toBe('audio/wav');
    await expect(generateSpeech(model, { text: 'Hi', voice: 'nobody' })).rejects.toMatchObject({ code: 'invalid_request', status: 400 });
  });
});

describe('OpenAI transcription', () => {
  const verbose = {
    task: 'transcribe',
    language: 'english',
    duration: 8.47,
    text: 'The beach was a popular spot. People were swimming.',
    segments: [
      { id: 0, seek: 0, start: 0, end: 3.32, text: ' The beach was a popular spot.', tokens: [1, 2], temperature: 0, avg_logprob: -0.28, compression_ratio: 1.2, no_speech_prob: 0.01 },
      { id: 1, seek: 0, start: 3.32, end: 8.47, text: ' People were swimming.', tokens: [3], temperature: 0, avg_logprob: -0.3, compression_ratio: 1.1, no_speech_prob: 0.02 },
    ],
    words: [{ word: 'The', start: 0, end: 0.2 }],
    usage: { type: 'duration', seconds: 9 },
  };

  it('whisper-1: multipart upload, verbose_json with segments, the language, duration and per-minute cost', async () => {
    const server = await serve(async (req, res) => {
      const form = await formOf(req);
      expectValid(OPENAI_SCHEMA, 'CreateTranscriptionRequest', await formAsObject(form));
      const file = form.get('file') as File;
      expect(file.name).toBe('audio.mp3');
      expect(file.type).toBe('audio/mpeg');
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(AUDIO);
      sendJson(res, 200, verbose);
    });
    const model = resolveTranscriptionModel('openai:whisper-1', { baseURL: server.url, apiKey: 'sk' });
    const result = await transcribe(model, { audio: AUDIO, mediaType: 'audio/mpeg', language: 'en', prompt: 'beach', words: true });
    const form = await formOf(server.requests[0]!);
    expect(form.get('model')).toBe('whisper-1');
    expect(form.get('response_format')).toBe('verbose_json');
    expect(form.getAll('timestamp_granularities[]')).toEqual(['segment', 'word']);
    expect(form.get('language')).toBe('en');
    expect(server.requests[0]!.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(result).toEqual({
      text: verbose.text,
      language: 'english',
      durationSeconds: 8.47,
      segments: [
        { start: 0, end: 3.32, text: ' The beach was a popular spot.' },
        { start: 3.32, end: 8.47, text: ' People were swimming.' },
      ],
      words: [{ word: 'The', start: 0, end: 0.2 }],
      usage: { cost: 0.0009 },
    });
  });

  it('gpt-4o-transcribe: json with token usage; the upload is sent again on a retry', async () => {
    const server = await serve(async (req, res, index) => {
      if (index === 0) return sendJson(res, 503, { error: { message: 'overloaded' } });
      const form = await formOf(req);
      expect(new Uint8Array(await (form.get('file') as File).arrayBuffer())).toEqual(AUDIO);
      sendJson(res, 200, { text: 'Hello.', usage: { type: 'tokens', input_tokens: 14, output_tokens: 3, total_tokens: 17 } });
    });
    const model = openaiTranscriptionModel('gpt-4o-transcribe', { baseURL: server.url, apiKey: 'sk', sleep: async () => {}, random: () => 0 });
    const base64 = Buffer.from(AUDIO).toString('base64');
    const result = await transcribe(model, { audio: base64, mediaType: 'audio/webm;codecs=opus' });
    expect(server.requests).toHaveLength(2);
    expect((await formOf(server.requests[1]!)).get('response_format')).toBe('json');
    expect(((await formOf(server.requests[1]!)).get('file') as File).name).toBe('audio.webm');
    expect(result.text).toBe('Hello.');
    expect(result.segments).toBeUndefined();
    expect(result.usage).toEqual({ inputTokens: 14, outputTokens: 3, totalTokens: 17, cost: (14 * 2.5 + 3 * 10) / 1e6 });
  });

  it('the caller aborting an upload is a typed abort', async () => {
    const server = await serve(() => {});
    const model = openaiTranscriptionModel('whisper-1', { baseURL: server.url, apiKey: 'sk' });
    const controller = new AbortController();
    const pending = transcribe(model, { audio: AUDIO, mediaType: 'audio/mpeg', signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    await expect(pending).rejects.toMatchObject({ code: 'aborted' });
  });
});

describe('Gemini audio', () => {
  it('speech: AUDIO modality and a prebuilt voice; raw PCM comes back wrapped as WAV, with usage and cost', async () => {
    const pcm = Buffer.from([1, 0, 2, 0, 3, 0, 4, 0]);
    const server = await serve((req, res) => {
      expectValidGoogle('GenerateContentRequest', req.body);
      sendJson(res, 200, {
        candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'audio/L16;codec=pcm;rate=24000', data: pcm.toString('base64') } }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 6, candidatesTokenCount: 100, totalTokenCount: 106 },
      });
    });
    const model = resolveSpeechModel('gemini:gemini-2.5-flash-preview-tts', { baseURL: server.url, apiKey: 'g' });
    const result = await generateSpeech(model, { text: 'Have a wonderful day!', voice: 'Puck', language: 'en-US' });
    expect(server.requests[0]!.url).toBe('/v1beta/models/gemini-2.5-flash-preview-tts:generateContent');
    expect(server.requests[0]!.body.generationConfig).toEqual({
      responseModalities: ['AUDIO'],
      speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: 'Puck' } }, languageCode: 'en-US' },
    });
    expect(result.mediaType).toBe('audio/wav');
    const wav = Buffer.from(result.audio);
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(wav.readUInt32LE(24)).toBe(24_000);
    expect(wav.readUInt32LE(40)).toBe(pcm.length);
    expect(wav.subarray(44)).toEqual(pcm);
    expect(result.usage).toEqual({ inputTokens: 6, outputTokens: 100, totalTokens: 106, cost: (6 * 0.5 + 100 * 10) / 1e6 });
  });

  it('transcription: the audio inline, a JSON transcript schema; segments and language read back', async () => {
    const transcript = { language: 'fr', text: 'Bonjour. Ça va ?', segments: [{ start: 0, end: 1.1, text: 'Bonjour.' }, { start: 1.1, end: 2, text: 'Ça va ?' }] };
    const server = await serve((req, res) => {
      expectValidGoogle('GenerateContentRequest', req.body);
      sendJson(res, 200, {
        candidates: [{ content: { role: 'model', parts: [{ text: JSON.stringify(transcript) }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 320, candidatesTokenCount: 40, totalTokenCount: 360 },
      });
    });
    const model = geminiTranscriptionModel('gemini-2.5-flash', { baseURL: server.url, apiKey: 'g' });
    const result = await transcribe(model, { audio: AUDIO, mediaType: 'audio/mp3' });
    const body = server.requests[0]!.body;
    expect(body.contents[0].parts[1]).toEqual({ inlineData: { mimeType: 'audio/mp3', data: Buffer.from(AUDIO).toString('base64') } });
    expect(body.generationConfig.responseMimeType).toBe('application/json');
    expect(result).toEqual({ text: transcript.text, language: 'fr', segments: transcript.segments, usage: { inputTokens: 320, outputTokens: 40, totalTokens: 360, cost: (320 * 1 + 40 * 2.5) / 1e6 } });
  });

  it('a blocked prompt is content_filter; plain text instead of JSON is kept as the transcript', async () => {
    const server = await serve((_req, res, index) => {
      if (index === 0) return sendJson(res, 200, { promptFeedback: { blockReason: 'SAFETY' } });
      sendJson(res, 200, { candidates: [{ content: { parts: [{ text: 'just words' }] }, finishReason: 'STOP' }] });
    });
    const model = geminiTranscriptionModel('gemini-2.5-flash', { baseURL: server.url, apiKey: 'g' });
    await expect(transcribe(model, { audio: AUDIO, mediaType: 'audio/mp3' })).rejects.toMatchObject({ code: 'content_filter' });
    await expect(transcribe(model, { audio: AUDIO, mediaType: 'audio/mp3' })).resolves.toEqual({ text: 'just words', usage: {} });
  });

  it('a speech model is not a transcription model', () => {
    expect(() => resolveTranscriptionModel('openai:tts-1', { apiKey: 'k' })).toThrow(/not a transcription model/);
    expect(() => resolveSpeechModel('openai:whisper-1', { apiKey: 'k' })).toThrow(/not a speech model/);
  });
});
