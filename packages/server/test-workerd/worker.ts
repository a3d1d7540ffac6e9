// The Parlance handler as a Worker, for the workerd tests. The runner stands in for a
// provider whose stream stays open until `release()` is called.
import { createParlanceApp } from '../src/index.ts';

export const provider = { ended: false, release: () => {} };

export const app = createParlanceApp({
  models: [{ id: 'mock:slow', provider: 'mock' }],
  async *run() {
    provider.ended = false;
    yield { type: 'message-start' };
    yield { type: 'text-delta', id: 't', delta: 'first' };
    await new Promise<void>((resolve) => (provider.release = resolve));
    yield { type: 'text-delta', id: 't', delta: ' second' };
    provider.ended = true;
    yield { type: 'finish', finishReason: 'stop', usage: {} };
    yield { type: 'chat-finish', haltReason: 'completed', usage: {} };
  },
});

export default app;
