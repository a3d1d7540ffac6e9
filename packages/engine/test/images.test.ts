import { describe, expect, it } from 'vitest';
import { ParlanceError } from '@parlance/protocol';
import { TINY_PNG_BASE64, fakeImageModel } from '@parlance/testing';
import { editImage, generateImage, imageVariations, resolveImageModel, type ImageModel } from '../src/index.ts';

interface Seen {
  url: string;
  headers: Headers;
  body: unknown;
}

/** A fetch stub that records the request and answers with `reply`. */
function stubFetch(reply: unknown, status = 200) {
  const seen: Seen[] = [];
  const fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : init?.body;
    seen.push({ url: String(input), headers, body });
    return new Response(JSON.stringify(reply), { status, headers: { 'content-type': 'application/json' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, seen };
}

const png = { data: TINY_PNG_BASE64, mediaType: 'image/png' };

describe('OpenAI Images', () => {
  it('generates: JSON body, bearer key, base64 images as FileParts with usage', async () => {
    const { fetch, seen } = stubFetch({ data: [{ b64_json: 'AAA' }, { b64_json: 'BBB' }], output_format: 'webp', usage: { input_tokens: 10, output_tokens: 20, total_tokens: 30 } });
    const model = resolveImageModel('openai:gpt-image-1', { env: { OPENAI_API_KEY: 'sk-test' }, fetch });
    const result = await generateImage(model, { prompt: 'a red fox', n: 2, size: '1024x1024', extra: { background: 'transparent' } });
    expect(seen[0]!.url).toBe('https://api.openai.com/v1/images/generations');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer sk-test');
    expect(seen[0]!.body).toEqual({ model: 'gpt-image-1', prompt: 'a red fox', n: 2, size: '1024x1024', background: 'transparent' });
    expect(result.images).toEqual([
      { type: 'file', mediaType: 'image/webp', data: 'AAA' },
      { type: 'file', mediaType: 'image/webp', data: 'BBB' },
    ]);
    expect(result.usage).toEqual({ inputTokens: 10, outputTokens: 20, totalTokens: 30 });
  });

  it('asks DALL-E for base64 and keeps revised prompts', async () => {
    const { fetch, seen } = stubFetch({ data: [{ b64_json: 'AAA', revised_prompt: 'A fox, red' }] });
    const model = resolveImageModel('openai:dall-e-3', { env: { OPENAI_API_KEY: 'k' }, fetch });
    const result = await generateImage(model, { prompt: 'fox' });
    expect(seen[0]!.body).toMatchObject({ response_format: 'b64_json' });
    expect(result.revisedPrompts).toEqual(['A fox, red']);
  });

  it('edits with multipart: image, mask, prompt', async () => {
    const { fetch, seen } = stubFetch({ data: [{ b64_json: 'EDITED' }] });
    const model = resolveImageModel('openai:gpt-image-1', { env: { OPENAI_API_KEY: 'k' }, fetch, baseURL: 'http://localhost:9/v1/' });
    const result = await editImage(model, { prompt: 'add a hat', image: png, mask: { ...png, filename: 'm.png' } });
    expect(seen[0]!.url).toBe('http://localhost:9/v1/images/edits');
    const form = seen[0]!.body as FormData;
    expect(form).toBeInstanceOf(FormData);
    expect(form.get('prompt')).toBe('add a hat');
    expect(form.get('model')).toBe('gpt-image-1');
    const image = form.get('image') as File;
    expect(image.type).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).toString('base64')).toBe(TINY_PNG_BASE64);
    expect((form.get('mask') as File).name).toBe('m.png');
    // fetch sets the multipart boundary itself.
    expect(seen[0]!.headers.get('content-type')).toBeNull();
    expect(result.images[0]).toEqual({ type: 'file', mediaType: 'image/png', data: 'EDITED' });
  });

  it('creates variations with multipart', async () => {
    const { fetch, seen } = stubFetch({ data: [{ b64_json: 'V1' }] });
    const model = resolveImageModel('openai:dall-e-2', { env: { OPENAI_API_KEY: 'k' }, fetch });
    await imageVariations(model, { image: png, n: 1, size: '256x256' });
    expect(seen[0]!.url).toBe('https://api.openai.com/v1/images/variations');
    const form = seen[0]!.body as FormData;
    expect(form.get('size')).toBe('256x256');
    expect(form.get('response_format')).toBe('b64_json');
  });

  it('maps HTTP errors to ParlanceErrors with status', async () => {
    const { fetch } = stubFetch({ error: { message: 'Your request was rejected by the safety system' } }, 400);
    const model = resolveImageModel('openai:gpt-image-1', { env: { OPENAI_API_KEY: 'k' }, fetch });
    const error = await generateImage(model, { prompt: 'x' }).catch((e: unknown) => e);
    expect(ParlanceError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'invalid_request', status: 400, message: 'Your request was rejected by the safety system' });
  });

  it('needs a key', () => {
    expect(() => resolveImageModel('openai:gpt-image-1', { env: {} })).toThrow(/OPENAI_API_KEY/);
  });
});

describe('Gemini image models', () => {
  const reply = {
    candidates: [{ content: { parts: [{ text: 'Here it is' }, { inlineData: { mimeType: 'image/png', data: 'GEM' } }] }, finishReason: 'STOP' }],
    usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1290, totalTokenCount: 1295 },
  };

  it('generates through generateContent with the IMAGE modality', async () => {
    const { fetch, seen } = stubFetch(reply);
    const model = resolveImageModel('google:gemini-2.5-flash-image', { env: { GEMINI_API_KEY: 'g-key' }, fetch });
    const result = await generateImage(model, { prompt: 'a banana', aspectRatio: '16:9' });
    expect(seen[0]!.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(seen[0]!.headers.get('x-goog-api-key')).toBe('g-key');
    expect(seen[0]!.body).toEqual({
      contents: [{ role: 'user', parts: [{ text: 'a banana' }] }],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '16:9' } },
    });
    expect(result).toEqual({
      images: [{ type: 'file', mediaType: 'image/png', data: 'GEM' }],
      text: 'Here it is',
      usage: { inputTokens: 5, outputTokens: 1290, totalTokens: 1295 },
    });
  });

  it('edits with the image as inlineData; a mask or variations are refused clearly', async () => {
    const { fetch, seen } = stubFetch(reply);
    const model = resolveImageModel('google:gemini-2.5-flash-image', { env: { GOOGLE_API_KEY: 'g' }, fetch });
    await editImage(model, { prompt: 'make it blue', image: png });
    expect((seen[0]!.body as { contents: { parts: unknown[] }[] }).contents[0]!.parts[1]).toEqual({
      inlineData: { mimeType: 'image/png', data: TINY_PNG_BASE64 },
    });
    await expect(editImage(model, { prompt: 'x', image: png, mask: png })).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(imageVariations(model, { image: png })).rejects.toMatchObject({ code: 'invalid_request' });
  });

  it('a blocked prompt is a content_filter error', async () => {
    const { fetch } = stubFetch({ promptFeedback: { blockReason: 'SAFETY' } });
    const model = resolveImageModel('google:gemini-2.5-flash-image', { env: { GEMINI_API_KEY: 'g' }, fetch });
    await expect(generateImage(model, { prompt: 'x' })).rejects.toMatchObject({ code: 'content_filter' });
  });
});

describe('fake image model', () => {
  it('stands in for an ImageModel and records its calls', async () => {
    const fake = fakeImageModel();
    const model: ImageModel = fake;
    const result = await generateImage(model, { prompt: 'cat', n: 2 });
    await editImage(model, { prompt: 'hat', image: png });
    expect(result.images).toHaveLength(2);
    expect(result.images[0]).toEqual({ type: 'file', mediaType: 'image/png', data: TINY_PNG_BASE64 });
    expect(fake.calls.map((c) => [c.call, c.request.prompt])).toEqual([
      ['generate', 'cat'],
      ['edit', 'hat'],
    ]);
  });
});
