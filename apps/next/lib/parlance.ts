// What the chat route serves: the demo's models (a mock model that needs no key, listed first,
// and real providers whose key is set: OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY) and
// the engine run behind them, with the demo's tools (get_weather asks for approval).
// In your app: `catalogModels([...])` and `engineRunner({ engine })`, as in the quick start.
import { demoServerOptions } from '@parlance/demo/server';

export const { models, run, secret } = demoServerOptions();
