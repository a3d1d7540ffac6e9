/**
 * What every gateway route shares: the key, the body, the allow-list and rate limit, and the
 * caller's format for errors. Routes beyond the chat APIs (embeddings, token counts, Ollama's
 * generate) are written against it.
 */
import type { DecodedRequest, Dialect, RequestDecodeOptions } from '@parlance/dialects';
import type { Context, Hono, MiddlewareHandler } from 'hono';
import type { GatewayPrincipal } from './keys.ts';
import type { GatewayOptions } from './options.ts';

/** The gateway's shared steps, for the route files. */
export interface GatewayEdge {
  app: Hono;
  options: GatewayOptions;
  /** The server's edge for the gateway (Origin, key, content type, body limit, JSON), refusing in the caller's format: first on every route. */
  guard: MiddlewareHandler;
  /** The principal and JSON body the edge let in (`body` when the route rewrote it), or the caller's 400. */
  admit(c: Context, dialect: Dialect, body?: unknown): Promise<{ principal: GatewayPrincipal; json: unknown } | Response>;
  /** The key's allow-list and rate limit for a model name: undefined to go on, else the caller's 403/429. */
  permit(c: Context, dialect: Dialect, principal: GatewayPrincipal, name: string): Promise<Response | undefined>;
  /** A request decoded in the caller's dialect, or its 400. */
  decode(dialect: Dialect, json: unknown, urlModel?: { model: string; stream: boolean }, resolved?: RequestDecodeOptions): DecodedRequest | Response;
  /** A chat call: decoded, routed, answered in the caller's format (`body` when the route already has it). */
  handle(c: Context, dialect: Dialect, urlModel?: { model: string; stream: boolean }, body?: unknown): Promise<Response>;
}
