/**
 * Which models the demo offers: the built-in mock always; real providers when their
 * key is in the server's environment (keys never reach the browser); Ollama's local
 * models when an Ollama answers on 127.0.0.1:11434 within a short timeout.
 */
import { catalogModels, type Env, type ModelEntry } from '@parlance/server';
import { SMALL_MODEL, SMALL_WINDOW } from './mock-script.ts';

export const MOCK_MODEL_ID = 'demo:mock';
export const MOCK_MODEL_NAME = 'Demo model (mock, no API key)';
/** The mock with a tiny context window, to watch a long thread get summarized. */
export const MOCK_SMALL_CONTEXT = `demo:${SMALL_MODEL}`;

const KEYED: { env: string[]; label: string; models: string[] }[] = [
  { env: ['OPENAI_API_KEY'], label: 'OpenAI', models: ['openai:gpt-5-mini', 'openai:gpt-5.1'] },
  { env: ['ANTHROPIC_API_KEY'], label: 'Anthropic', models: ['anthropic:claude-haiku-4-5', 'anthropic:claude-sonnet-4-5'] },
  { env: ['GEMINI_API_KEY', 'GOOGLE_GENERATIVE_AI_API_KEY'], label: 'Gemini', models: ['google:gemini-2.5-flash', 'google:gemini-2.5-pro'] },
];

export const OLLAMA_URL = 'http://127.0.0.1:11434';

export type OllamaProbe = () => Promise<string[]>;

/**
 * Lists local Ollama models (https://github.com/ollama/ollama/blob/main/docs/api.md#list-local-models),
 * remembering the answer for a while so the model list stays fast. Never throws:
 * no Ollama simply means no Ollama models.
 */
export function ollamaProbe(options: { fetch?: typeof fetch; timeoutMs?: number; ttlMs?: number } = {}): OllamaProbe {
  let cached: { at: number; names: Promise<string[]> } | undefined;
  const ttl = options.ttlMs ?? 30_000;
  return () => {
    if (cached && Date.now() - cached.at < ttl) return cached.names;
    const names = (async () => {
      try {
        const response = await (options.fetch ?? fetch)(`${OLLAMA_URL}/api/tags`, { signal: AbortSignal.timeout(options.timeoutMs ?? 400) });
        if (!response.ok) return [];
        const body = (await response.json()) as { models?: { name?: unknown }[] };
        return (body.models ?? []).map((m) => m.name).filter((n): n is string => typeof n === 'string');
      } catch {
        return [];
      }
    })();
    cached = { at: Date.now(), names };
    return names;
  };
}

export const mockModelEntry: ModelEntry = {
  id: MOCK_MODEL_ID,
  provider: 'demo',
  name: MOCK_MODEL_NAME,
  capabilities: { mock: true, reasoning: true, input: ['text', 'image'] },
};

export const mockSmallModelEntry: ModelEntry = {
  id: MOCK_SMALL_CONTEXT,
  provider: 'demo',
  name: `Demo model, ${SMALL_WINDOW / 1000}k context (mock: long threads get summarized)`,
  capabilities: { mock: true, reasoning: true, input: ['text'] },
};

export async function availableModels(env: Env, probe?: OllamaProbe): Promise<ModelEntry[]> {
  const out: ModelEntry[] = [mockModelEntry, mockSmallModelEntry];
  for (const group of KEYED) {
    if (!group.env.some((name) => env[name])) continue;
    for (const entry of catalogModels(group.models)) out.push({ ...entry, name: `${group.label} ${entry.id.slice(entry.id.indexOf(':') + 1)}` });
  }
  if (probe) {
    for (const name of await probe()) out.push({ id: `ollama:${name}`, provider: 'ollama', name: `Ollama ${name} (local)` });
  }
  return out;
}
