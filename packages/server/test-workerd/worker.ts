// The Parlance handler as a plain Worker (the README quick start: createParlanceApp with the
// default memory store, no Durable Object), for the workerd tests.
//  - 'mock:slow' stands in for a provider whose stream stays open until `release()` is called;
//  - 'mock:stream' reads an upstream stream this run's request created (an I/O object only that
//    request may touch), and records whether it was cancelled.
import { createParlanceApp } from '../src/index.ts';

export { ParlanceGatewayStoreObject, ParlanceRateLimitObject, ParlanceRunStoreObject } from '../src/durable-objects/index.ts';

export const provider = { ended: false, release: () => {} };
/** Per run: did its upstream stream get cancelled, and by an abort this request saw. */
export const upstreams = new Map<string, { cancelled: boolean }>();
export const errors: unknown[] = [];

function upstream(words: string[], delayMs: number): ReadableStream<string> {
  let i = 0;
  return new ReadableStream<string>({
    async pull(controller) {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (i < words.length) controller.enqueue(words[i++]!);
      else controller.close();
    },
  });
}

export const app = createParlanceApp({
  models: [
    { id: 'mock:slow', provider: 'mock' },
    { id: 'mock:stream', provider: 'mock' },
  ],
  onError: (error) => void errors.push(error),
  async *run(input) {
    if (input.model === 'mock:stream') {
      const state = { cancelled: false };
      upstreams.set(input.runId, state);
      const reader = upstream(Array.from({ length: 100 }, (_, i) => `w${i} `), 20).getReader();
      // Like fetch: aborting the signal cancels the upstream body, in whatever context the abort runs.
      input.signal.addEventListener('abort', () => {
        state.cancelled = true;
        void reader.cancel();
      });
      yield { type: 'message-start' };
      yield { type: 'text-start', id: 't' };
      for (;;) {
        const { done, value } = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (done || input.signal.aborted) break;
        yield { type: 'text-delta', id: 't', delta: value! };
      }
      yield { type: 'text-end', id: 't' };
      yield { type: 'chat-finish', haltReason: input.signal.aborted ? 'cancelled' : 'completed', usage: {} };
      return;
    }
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

// The durable-run tests' object (durable-runs.test.ts): it runs its runs itself.
export { ParlanceDurableRuns } from './durable-runs-worker.ts';
