/**
 * Which models the Worker offers: those of every provider whose key is bound (a
 * secret or a `.dev.vars` entry), or the mock model when no key is bound at all, so
 * a fresh checkout runs with nothing configured.
 */
import { catalogModels, type Env, type ModelEntry } from '@parlance/server';
import { MOCK_MODEL_ID } from './mock-provider.ts';

/** The environment variables each built-in provider reads its key from, and the models offered with it. */
const PROVIDERS: { keys: string[]; models: string[] }[] = [
  { keys: ['ANTHROPIC_API_KEY'], models: ['anthropic:claude-sonnet-4-5', 'anthropic:claude-haiku-4-5'] },
  { keys: ['OPENAI_API_KEY'], models: ['openai:gpt-5-mini', 'openai:gpt-5'] },
  { keys: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY', 'GOOGLE_API_KEY'], models: ['google:gemini-2.5-flash', 'google:gemini-2.5-pro'] },
];

/** An empty `.dev.vars` line (`OPENAI_API_KEY=`) binds an empty string: that is no key. */
function has(env: Env, name: string): boolean {
  return (env[name]?.trim() ?? '') !== '';
}

export function offeredModels(env: Env): ModelEntry[] {
  const ids = PROVIDERS.filter((p) => p.keys.some((k) => has(env, k))).flatMap((p) => p.models);
  if (ids.length > 0) return catalogModels(ids);
  return [{ id: MOCK_MODEL_ID, provider: 'mock', name: 'Mock model (no API key set)', capabilities: { known: false, mock: true } }];
}
