/**
 * Every dialect and the whole catalog: the kit of a provider from `defineProvider`, whose dialect
 * and catalog table are only known at run time. Importing this bundles all five dialects' client
 * halves and every catalog table; the built-in providers' entry points do not.
 */
import {
  anthropicMessagesClient,
  googleGeminiClient,
  ollamaChatClient,
  openaiCompletionsClient,
  openaiResponsesClient,
} from '@parlance/dialects';
import { CATALOG } from '../catalog/catalog.ts';
import type { ProviderKit } from './provider-kit.ts';

export const FULL_KIT: ProviderKit = {
  dialects: {
    anthropic_messages: anthropicMessagesClient,
    google_gemini: googleGeminiClient,
    ollama_chat: ollamaChatClient,
    openai_completions: openaiCompletionsClient,
    openai_responses: openaiResponsesClient,
  },
  catalog: CATALOG,
};
