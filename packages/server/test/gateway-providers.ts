import type { DialectId } from '@parlance/dialects';
import type { ModelSpec } from '@parlance/engine';

/**
 * The route spec (without a model) whose provider speaks each dialect, for gateway tests and
 * benches that put a mock provider of that dialect behind a route.
 */
export const PROVIDER: Record<DialectId, Omit<ModelSpec, 'model'>> = {
  openai_completions: { provider: 'openai', dialect: 'openai_completions' },
  openai_responses: { provider: 'openai' },
  anthropic_messages: { provider: 'anthropic' },
  google_gemini: { provider: 'google' },
  ollama_chat: { provider: 'ollama' },
};
