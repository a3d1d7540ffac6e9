/**
 * Ollama's `POST /api/generate` (one prompt, the Ollama SDK's `generate()`): the prompt becomes
 * a chat call (system, then the user's prompt and images) and the chat answer is written back as
 * `generate` writes it: `response` and `thinking` instead of a `message`. Raw prompts, `suffix`
 * and `context` (the model's own tokens) cannot cross providers and are refused.
 * https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-completion
 */
import { getDialect } from '@parlance/dialects';
import { errorResponse } from './answer.ts';
import type { GatewayEdge } from './edge.ts';

/** One chat NDJSON line or body -> the generate form (`message` -> `response`, `thinking`). */
function asGenerate(chunk: Record<string, unknown>): Record<string, unknown> {
  const { message, ...rest } = chunk;
  if (typeof message !== 'object' || message === null) return chunk;
  const { content, thinking } = message as { content?: string; thinking?: string };
  const out: Record<string, unknown> = { model: rest.model, created_at: rest.created_at, response: content ?? '' };
  if (thinking) out.thinking = thinking;
  for (const [key, value] of Object.entries(rest)) if (!(key in out)) out[key] = value;
  return out;
}

/** Rewrites a chat answer (NDJSON stream or one body) line by line; error bodies pass unchanged. */
async function rewrite(response: Response): Promise<Response> {
  if (response.status !== 200 || !response.body) return response;
  if (!response.headers.get('content-type')?.includes('ndjson')) return Response.json(asGenerate((await response.json()) as Record<string, unknown>));
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  let buffered = '';
  const lines = (text: string) =>
    text
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => `${JSON.stringify(asGenerate(JSON.parse(line) as Record<string, unknown>))}\n`)
      .join('');
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        buffered += decoder.decode(chunk, { stream: true });
        const end = buffered.lastIndexOf('\n');
        if (end < 0) return;
        const whole = buffered.slice(0, end + 1);
        buffered = buffered.slice(end + 1);
        controller.enqueue(encoder.encode(lines(whole)));
      },
      flush(controller) {
        if (buffered !== '') controller.enqueue(encoder.encode(lines(buffered)));
      },
    }),
  );
  return new Response(body, { status: 200, headers: response.headers });
}

export function mountOllamaGenerate(edge: GatewayEdge): void {
  const ollama = getDialect('ollama_chat');
  edge.app.post('/api/generate', edge.guard, async (c) => {
    const admitted = await edge.admit(c, ollama);
    if (admitted instanceof Response) return admitted;
    const body = admitted.json as Record<string, unknown>;
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return errorResponse(ollama, 'invalid_request', 'The body must be a JSON object', 400);
    const { prompt, system, images, suffix, raw, context, template: _template, ...rest } = body;
    if (raw === true || suffix !== undefined || context !== undefined) {
      return errorResponse(ollama, 'invalid_request', '`raw`, `suffix` and `context` name one model\'s own prompt format and tokens; they cannot go through the gateway', 400);
    }
    const messages: Record<string, unknown>[] = [];
    if (typeof system === 'string' && system !== '') messages.push({ role: 'system', content: system });
    messages.push({ role: 'user', content: typeof prompt === 'string' ? prompt : '', ...(Array.isArray(images) ? { images } : {}) });
    return rewrite(await edge.handle(c, ollama, undefined, { ...rest, messages }));
  });
}
