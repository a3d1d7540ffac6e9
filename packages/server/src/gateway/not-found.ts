/**
 * An unknown path answers 404 in the caller's format, so its SDK raises its own not-found error
 * rather than failing to parse `404 text/plain`. The caller is told apart the way the routes
 * are: Gemini by `/v1beta` or its key header, Anthropic by `anthropic-version`, Ollama by `/api/`,
 * OpenAI otherwise. The gateway's own prefixes (`/v1`, `/v1beta`) end in a catch-all; other paths
 * get the app's `notFound` (when the gateway is served alone or under a `basePath`).
 */
import { getDialect, type DialectId } from '@parlance/dialects';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { errorResponse, shown } from './answer.ts';

/** Whether the caller is a Gemini client (its key header or `?key=`; `@google/genai` also names itself). */
export function geminiCaller(c: Context): boolean {
  return c.req.header('x-goog-api-key') !== undefined || c.req.header('x-goog-api-client') !== undefined || c.req.query('key') !== undefined;
}

/**
 * The caller's format, from the path it called (under any mount prefix) and its headers: what the
 * gateway's refusals (401, 413, bad JSON) and 404s are written in.
 */
export function callerDialect(c: Context): DialectId {
  const path = c.req.path;
  if (path.endsWith('/v1/chat/completions') || path.endsWith('/v1/embeddings')) return 'openai_completions';
  if (path.includes('/v1/responses')) return 'openai_responses';
  if (path.includes('/v1/messages')) return 'anthropic_messages';
  if (path.includes('/api/')) return 'ollama_chat';
  // Gemini (only Gemini POSTs under /v1/models/: models/{model}:generateContent).
  if (path.includes('/v1beta/') || geminiCaller(c) || (c.req.method === 'POST' && path.includes('/v1/models/'))) return 'google_gemini';
  return c.req.header('anthropic-version') !== undefined ? 'anthropic_messages' : 'openai_completions';
}

export function notFound(c: Context): Response {
  return errorResponse(getDialect(callerDialect(c)), 'not_found', `No route for ${c.req.method} ${shown(c.req.path)}`, 404);
}

export function mountNotFound(app: Hono, guard: MiddlewareHandler): void {
  app.all('/v1/*', guard, notFound);
  app.all('/v1beta/*', guard, notFound);
  app.notFound(notFound);
}
