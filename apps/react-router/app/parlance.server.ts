// What the chat route serves (server-only: the `.server` suffix keeps it out of the browser
// bundle): the demo's models (a mock model that needs no key, listed first, and real providers
// whose key is set: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) and the engine run behind
// them, with the demo's tools, and the key that signs tool calls (PARLANCE_SECRET, else one per process).
// In your app: `catalogModels([...])` and `engineRunner({ engine })`,
// as in the quick start.
import { demoServerOptions } from '@parlance/demo/server';

export const { models, run, secret } = demoServerOptions();
