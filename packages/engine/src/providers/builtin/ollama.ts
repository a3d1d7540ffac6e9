/**
 * Ollama's native chat API (NDJSON, https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion),
 * local by default. No key locally; Ollama's cloud takes a bearer key (OLLAMA_API_KEY).
 * Local models are not in the catalog: they get the permissive defaults.
 */
import { ollamaChatClient } from '@parlance/dialects';
import { createProvider } from '../define-provider.ts';

const DEFAULT_PORT = '11434';

/**
 * `OLLAMA_HOST` as Ollama's own clients read it (ollama-js `formatHost`): `host`, `host:port`,
 * `:port` or a URL; no scheme means http and port 11434, a scheme without a port its default port.
 *
 * @example
 * ollamaHostURL('gpu-box'); // 'http://gpu-box:11434'
 * ollamaHostURL(':8080'); // 'http://127.0.0.1:8080'
 */
export function ollamaHostURL(host: string): string {
  const bare = host.startsWith(':') ? `127.0.0.1${host}` : host;
  const explicit = bare.includes('://');
  const url = new URL(explicit ? bare : `http://${bare}`);
  const port = url.port || (!explicit ? DEFAULT_PORT : url.protocol === 'https:' ? '443' : '80');
  const auth = url.username ? `${url.username}${url.password ? `:${url.password}` : ''}@` : '';
  return `${url.protocol}//${auth}${url.hostname}:${port}${url.pathname}`.replace(/\/+$/, '');
}

/**
 * 
 *
 * @example
 * await createEngine().chat({ model: 'ollama:llama3.2', prompt: 'Hi' }); // 127.0.0.1:11434, or OLLAMA_HOST
 */
export const ollama = /* @__PURE__ */ createProvider({
  id: 'ollama',
  name: 'Ollama',
  baseURL: 'http://127.0.0.1:11434',
  baseURLEnv: 'OLLAMA_HOST',
  parseBaseURLEnv: ollamaHostURL,
  auth: { env: 'OLLAMA_API_KEY', optional: true },
  dialect: 'ollama_chat',
}, { dialects: { ollama_chat: ollamaChatClient }, catalog: {} });
