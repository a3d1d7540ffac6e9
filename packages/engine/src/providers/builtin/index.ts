import type { Provider } from '../types.ts';
import { anthropic } from './anthropic.ts';
import {
  alibaba,
  cerebras,
  deepseek,
  fireworks,
  groq,
  mistral,
  moonshot,
  openrouter,
  together,
  xai,
  zai,
} from './chat-completions-vendors.ts';
import { google } from './google.ts';
import { ollama } from './ollama.ts';
import { openai } from './openai.ts';

export { alibaba, anthropic, cerebras, deepseek, fireworks, google, groq, mistral, moonshot, ollama, openai, openrouter, together, xai, zai };

/**
 * Every built-in provider by id: what `resolveModel('id:model')` looks in.
 *
 * @example
 * Object.keys(builtinProviders); // ['openai', 'anthropic', 'google', 'ollama', 'groq', ...]
 * const model = builtinProviders.groq!.model('llama-3.3-70b-versatile');
 */
export const builtinProviders: Readonly<Record<string, Provider>> = {
  openai,
  anthropic,
  google,
  ollama,
  groq,
  openrouter,
  deepseek,
  together,
  fireworks,
  mistral,
  xai,
  cerebras,
  moonshot,
  zai,
  alibaba,
};
