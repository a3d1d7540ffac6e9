/**
 * The loop: stream a step, run the tools it asked for, feed the results back, and
 * stop for exactly one stated reason. Everything it does is an event; the thread it
 * reports is the fold of those events onto the input thread, so a client folding
 * the same events sees the same conversation. The phases are `ChatRun`'s methods
 * (chat-run.ts); the decisions between them are in halt.ts.
 */
import { ParlanceError, takeReady, type Event, type LanguageModel, type ModelRequest } from '@parlance/protocol';
import { ChatRun } from './chat-run.ts';
import { createEventQueue, DEFAULT_MAX_QUEUED_BYTES, type EventQueue } from './event-queue.ts';
import { Halt, haltOfError } from './halt.ts';
import type { RunConfig } from './run-config.ts';

export type { RunConfig } from './run-config.ts';

export function runChat(config: RunConfig): AsyncIterable<Event> {
  const controller = new AbortController();
  const queue = createEventQueue<Event>(() => controller.abort(new ParlanceError('aborted', 'The reader stopped')), {
    maxBytes: config.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    sizeOf: eventBytes,
  });
  void drive({ ...config, model: paced(config.model, queue), taken: queue.taken }, controller, queue.push, queue.end);
  return queue;
}

/** An event's size for the queue's bound: its streamed text, plus a flat 64 bytes for the rest. */
const eventBytes = (event: Event): number => 64 + ('delta' in event && typeof event.delta === 'string' ? event.delta.length : 0);

/**
 * The model, read no faster than the run's reader takes events: each read of its stream waits
 * for the queue to be under its bound first (backpressure up to the provider's HTTP body, which
 * is pulled, not pushed). Everything else is the model itself (a prototype, so hooks see it whole).
 */
function paced(model: LanguageModel, queue: Pick<EventQueue<Event>, 'full' | 'ready'>): LanguageModel {
  const out = Object.create(model) as LanguageModel;
  Object.defineProperty(out, 'stream', {
    value: (request: Omit<ModelRequest, 'model'>, options?: Parameters<LanguageModel['stream']>[1]): AsyncIterable<Event> => ({
      [Symbol.asyncIterator]() {
        const source = model.stream(request, options)[Symbol.asyncIterator]();
        return {
          // No promise of its own while the queue has room (one read per streamed event).
          next: () => (queue.full() ? queue.ready().then(() => source.next()) : source.next()),
          // What the model holds already, while the queue has room (else the next `next()` waits for it).
          takeReady: () => (queue.full() ? undefined : takeReady(source)),
          return: async (value?: unknown) => (await source.return?.(value)) ?? { done: true, value: undefined },
        };
      },
    }),
  });
  return out;
}

/** Runs the loop, then finishes it: whatever ends it (a phase's halt, a cancel, an exception) becomes the one `chat-finish`. */
async function drive(config: RunConfig, controller: AbortController, output: (event: Event) => void, end: () => void): Promise<void> {
  const signal = controller.signal;
  const onAbort = () => controller.abort(config.signal?.reason);
  if (config.signal?.aborted) onAbort();
  else config.signal?.addEventListener('abort', onAbort, { once: true });
  const run = new ChatRun(config, signal, output);
  let halt: Halt;
  try {
    halt = await run.loop();
  } catch (error) {
    halt = haltOfError(error, signal.aborted);
  }
  if (halt.reason !== 'cancelled' && signal.aborted) halt = new Halt('cancelled');
  config.signal?.removeEventListener('abort', onAbort);
  await run.finish(halt);
  end();
}
