import type { DialectId } from '@parlance/dialects';
import type { ModelSpec } from '@parlance/engine';
import type { LanguageModel } from '@parlance/protocol';
import type { MockProviderHandler } from '@parlance/testing';
import type { Hono } from 'hono';
import { callerRequest } from './caller-request.ts';
import { PROVIDER } from './gateway-providers.ts';

/** A route to an in-process provider (`handler` answers the provider's HTTP). */
export function target(dialect: DialectId, handler: MockProviderHandler | ((request: Request) => Response | Promise<Response>), model = 'mock-1'): ModelSpec {
  return { ...PROVIDER[dialect], model, baseURL: `https://${dialect}.mock`, apiKey: 'provider-key', retry: false, fetch: (input, init) => Promise.resolve(handler(new Request(input, init))) };
}

/**
 * A model of the app's own (no provider behind it, so it reports no bytes or body and its message-start no
 * provenance) that answers `deltas` as one text block.
 */
export function appModel(dialect: DialectId, deltas: readonly string[]): LanguageModel {
  return {
    provider: 'own',
    modelId: 'own-1',
    dialect,
    async *stream() {
      yield { type: 'message-start' };
      yield { type: 'text-start', id: 't' };
      for (const delta of deltas) yield { type: 'text-delta', id: 't', delta };
      yield { type: 'text-end', id: 't' };
      yield { type: 'finish', finishReason: 'stop', usage: { inputTokens: 3, outputTokens: deltas.length } };
    },
  };
}

export { callerRequest } from './caller-request.ts';

export const AUTH = { authorization: 'Bearer k1', 'content-type': 'application/json' };

/** Posts a caller's request to an in-process gateway. */
export function post(app: Hono, dialect: DialectId, model: string, stream: boolean, extra?: Record<string, unknown>, headers: Record<string, string> = AUTH) {
  const { path, body } = callerRequest(dialect, model, stream, extra);
  return app.request(path, { method: 'POST', headers, body: JSON.stringify(body) });
}

/** The JSON data of every SSE frame of a body. */
export function sseData(text: string): Record<string, unknown>[] {
  return text
    .split(/\r?\n\r?\n/)
    .map((frame) => frame.split(/\r?\n/).find((line) => line.startsWith('data: '))?.slice(6))
    .filter((data): data is string => data !== undefined && data !== '[DONE]')
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}
