/**
 * Token counting, as each SDK calls it: Anthropic `POST /v1/messages/count_tokens`
 * (`{ input_tokens }`), OpenAI `POST /v1/responses/input_tokens`
 * (`{ object: "response.input_tokens", input_tokens }`), Gemini `models/{model}:countTokens`
 * (`{ totalTokens }`). The request is decoded in the caller's format and routed like a chat
 * call (same model names, allow-list and rate limit); the count is the engine's estimate
 * (`estimateRequestTokens`, about 4 characters a token, images and tools included): the
 * routed provider may not count tokens at all, and a gateway does not hold every tokenizer.
 * https://docs.anthropic.com/en/api/messages-count-tokens
 * https://platform.openai.com/docs/api-reference/responses/input-tokens
 * https://ai.google.dev/api/tokens#method:-models.counttokens
 */
import { getDialect, type Dialect } from '@parlance/dialects';
import { estimateRequestTokens } from '@parlance/engine';
import type { Context } from 'hono';
import { errorResponse, shown } from './answer.ts';
import type { GatewayEdge } from './edge.ts';
import type { Router } from './routing.ts';

/**
 * Mounts the Anthropic and OpenAI counting routes; returns the Gemini `countTokens` handler for the
 * gateway's Gemini path router.
 */
export function mountTokenCounts(edge: GatewayEdge, router: Router): (c: Context, model: string) => Promise<Response> {
  const count = async (c: Context, dialect: Dialect, shape: (tokens: number) => unknown, urlModel?: string, body?: unknown) => {
    const admitted = await edge.admit(c, dialect, body);
    if (admitted instanceof Response) return admitted;
    // Counting bodies leave out what only generation needs (Anthropic's max_tokens).
    const json = dialect.id === 'anthropic_messages' && typeof admitted.json === 'object' && admitted.json !== null ? { max_tokens: 1, ...admitted.json } : admitted.json;
    const decoded = edge.decode(dialect, json, urlModel === undefined ? undefined : { model: urlModel, stream: false });
    if (decoded instanceof Response) return decoded;
    const name = decoded.request.model;
    const model = router.resolve(name);
    if (!model) return errorResponse(dialect, 'not_found', `The model "${shown(name)}" does not exist or you do not have access to it`, 404);
    const refused = await edge.permit(c, dialect, admitted.principal, name);
    if (refused) return refused;
    return Response.json(shape(estimateRequestTokens(decoded.request, model.dialect)));
  };
  edge.app.post('/v1/messages/count_tokens', edge.guard, (c) => count(c, getDialect('anthropic_messages'), (tokens) => ({ input_tokens: tokens })));
  edge.app.post('/v1/responses/input_tokens', edge.guard, (c) =>
    count(c, getDialect('openai_responses'), (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens })),
  );
  const gemini = getDialect('google_gemini');
  return async (c, model) => {
    // countTokens takes `contents` or a whole `generateContentRequest`.
    const admitted = await edge.admit(c, gemini);
    if (admitted instanceof Response) return admitted;
    const body = admitted.json;
    const inner = (body as { generateContentRequest?: unknown } | null)?.generateContentRequest;
    const request = typeof inner === 'object' && inner !== null ? { ...inner, model: undefined } : body;
    return count(c, gemini, (tokens) => ({ totalTokens: tokens }), model, request);
  };
}
