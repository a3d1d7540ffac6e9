import { describe, expect, it } from 'vitest';
import { availableModels, MOCK_MODEL_ID, MOCK_SMALL_CONTEXT, ollamaProbe } from './models.ts';

describe('availableModels', () => {
  it('lists a reachable Ollama\'s local models after the mock', async () => {
    const calls: string[] = [];
    const probe = ollamaProbe({
      fetch: async (input) => {
        calls.push(String(input));
        return Response.json({ models: [{ name: 'llama3.2:3b' }, { name: 'qwen3:8b' }] });
      },
    });
    const models = await availableModels({}, probe);
    expect(models.map((m) => m.id)).toEqual([MOCK_MODEL_ID, MOCK_SMALL_CONTEXT, 'ollama:llama3.2:3b', 'ollama:qwen3:8b']);
    expect(calls).toEqual(['http://127.0.0.1:11434/api/tags']);
    // Remembered for a while: the model list does not probe on every request.
    await availableModels({}, probe);
    expect(calls).toHaveLength(1);
  });

  it('offers only the mock when Ollama is down, refuses, or never answers', async () => {
    const down = ollamaProbe({ fetch: async () => Promise.reject(new TypeError('fetch failed')) });
    const refusing = ollamaProbe({ fetch: async () => new Response('nope', { status: 500 }) });
    const silent = ollamaProbe({
      timeoutMs: 20,
      fetch: (_input, init) => new Promise((_, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
    });
    for (const probe of [down, refusing, silent]) expect((await availableModels({}, probe)).map((m) => m.id)).toEqual([MOCK_MODEL_ID, MOCK_SMALL_CONTEXT]);
  });

  it('adds Gemini models for GEMINI_API_KEY, with catalog capabilities', async () => {
    const models = await availableModels({ GEMINI_API_KEY: 'g-key' });
    const gemini = models.find((m) => m.id === 'google:gemini-2.5-flash');
    expect(gemini).toMatchObject({ provider: 'google', name: 'Gemini gemini-2.5-flash', capabilities: { known: true } });
  });
});
