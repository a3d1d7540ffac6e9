import { Hono } from 'hono';
import { createGateway, staticKeys } from '@parlance/server/gateway';

export const app = new Hono().route('/', createGateway({
  // What callers may name as `model`: a provider model, or a fallback chain (withFallback).
  routes: { fast: 'openai:gpt-5-mini', smart: ['anthropic:claude-sonnet-4-5', 'openai:gpt-5'] },
  // Gateway keys (Bearer, x-api-key or x-goog-api-key) -> principals; provider keys stay in the environment.
  authorize: staticKeys({ 'sk-team-a': { id: 'team-a', models: ['fast'], rateLimit: { requests: 60, windowMs: 60_000 } } }),
  onFinish: ({ principal, model, usage }) => console.log(principal.id, model, usage.cost),
}));
// new OpenAI({ baseURL: 'http://host/v1', apiKey: 'sk-team-a' }), new Anthropic({ baseURL: 'http://host', apiKey: 'sk-team-a' }),
// new GoogleGenAI({ apiKey: 'sk-team-a', httpOptions: { baseUrl: 'http://host' } }), new Ollama({ host: 'http://host' })
