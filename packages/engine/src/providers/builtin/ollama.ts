/**
 * Ollama's native chat API (NDJSON, https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion),
 * local by default. No key locally; Ollama's cloud takes a bearer key (OLLAMA_API_KEY).
 * Local models are not in the catalog: they get the permissive defaults.
 */
import { defineProvider } from '../define-provider.ts';

export const ollama = defineProvider({
  id: 'ollama',
  name: 'Ollama',
  baseURL: 'http://127.0.0.1:11434',
  auth: { env: 'OLLAMA_API_KEY', optional: true },
  dialect: 'ollama_chat',
});
