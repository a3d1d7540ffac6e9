/**
 * Answers in the providers' wire formats for the media endpoints, and the published
 * request schemas the mocks check every request against (vendored in
 * packages/dialects/test/api-schemas, see SOURCES.md there).
 */
import type { ServerResponse } from 'node:http';
import { expect } from 'vitest';
import { GOOGLE_SCHEMA, OPENAI_SCHEMA, validateAgainst, validateAgainstDiscovery } from '../../../dialects/test/schemas.ts';
import { type RecordedRequest, sendJson } from '../providers/server.ts';

export const OLLAMA_SCHEMA = 'ollama__ollama__openapi.yaml';

/** Asserts a request body is valid against an OpenAPI component (OpenAI or Ollama). */
export function expectValid(file: string, component: string, body: unknown): void {
  expect(validateAgainst(file, `/components/schemas/${component}`, body)).toBe('');
}

export function expectValidGoogle(name: string, body: unknown): void {
  expect(validateAgainstDiscovery(GOOGLE_SCHEMA, name, body)).toBe('');
}

export { OPENAI_SCHEMA };

/** A deterministic vector for a text: tests can tell which input a vector belongs to. */
export function vectorOf(text: string, dimensions = 4): number[] {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (hash * 31 + text.charCodeAt(i)) >>> 0;
  // Values exactly representable as float32, so base64 round trips compare equal.
  return Array.from({ length: dimensions }, (_, k) => ((hash >>> (k * 3)) % 1024) / 1024 - 0.5);
}

export function float32Base64(vector: number[]): string {
  const bytes = Buffer.alloc(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** OpenAI's `CreateEmbeddingResponse`, `data` in reverse order (the client must use `index`). */
export function answerOpenAIEmbeddings(req: RecordedRequest, res: ServerResponse): void {
  const inputs = req.body.input as string[];
  const base64 = req.body.encoding_format === 'base64';
  const data = inputs.map((text, index) => ({ object: 'embedding', index, embedding: base64 ? float32Base64(vectorOf(text)) : vectorOf(text) })).reverse();
  const tokens = inputs.reduce((n, t) => n + t.split(' ').length, 0);
  sendJson(res, 200, { object: 'list', model: req.body.model, data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

/** Gemini's `BatchEmbedContentsResponse`. */
export function answerGoogleEmbeddings(req: RecordedRequest, res: ServerResponse): void {
  const requests = req.body.requests as { content: { parts: { text: string }[] } }[];
  const embeddings = requests.map((r) => ({ values: vectorOf(r.content.parts[0]!.text) }));
  sendJson(res, 200, { embeddings, usageMetadata: { promptTokenCount: requests.length * 3 } });
}

/** Ollama's `EmbedResponse`. */
export function answerOllamaEmbeddings(req: RecordedRequest, res: ServerResponse): void {
  const inputs = req.body.input as string[];
  sendJson(res, 200, { model: req.body.model, embeddings: inputs.map((t) => vectorOf(t)), total_duration: 1000, load_duration: 10, prompt_eval_count: inputs.length * 2 });
}

/** The multipart form of a recorded request, parsed by the platform's own parser. */
export async function formOf(req: RecordedRequest): Promise<FormData> {
  const request = new Request('http://mock/upload', {
    method: 'POST',
    headers: { 'content-type': String(req.headers['content-type']) },
    body: new Uint8Array(req.bytes),
  });
  return request.formData();
}
