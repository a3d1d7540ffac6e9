/**
 * StreamStore: folds any protocol event stream (an async iterable from `source`, or
 * the SSE response of a POST to `api`) with the protocol's fold. The low-level
 * counterpart of ChatStore, like TanStack Query's streamedQuery.
 */
import { ParlanceError, createFoldState, reduceEvents, type ErrorPayload, type Event, type FoldState } from '@parlance/protocol';
import { readSse } from './sse.ts';
import { Store } from './store.ts';
import { request, type TransportOptions } from './transport.ts';

/**
 * Where a `StreamStore` reads events from, instead of POSTing to `api`.
 *
 * @example
 * const source: StreamSource = async function* () { yield* recordedEvents; };
 */
export type StreamSource = (input: unknown, signal: AbortSignal) => AsyncIterable<Event> | Promise<AsyncIterable<Event>>;

/**
 * 
 *
 * @example
 * new StreamStore({ source: (input, signal) => decodeStream('openai_responses', fetchBody(input, signal)) });
 */
export interface StreamOptions extends Partial<TransportOptions> {
  /** Where events come from; without it, `start(body)` POSTs `body` as JSON to `api` and reads SSE. */
  source?: StreamSource;
}

/**
 * A `StreamStore`'s state: the fold, the status, the error.
 *
 * @example
 * const { status, error } = stream.getSnapshot();
 */
export interface StreamStoreState {
  fold: FoldState;
  status: 'idle' | 'streaming' | 'done' | 'error';
  error?: ErrorPayload;
}

/**
 * One protocol stream folded into a response: from any event source, or POSTed to an SSE endpoint.
 *
 * @example
 * const stream = new StreamStore({ api: '/api/summarize' });
 * stream.subscribe(() => render(stream.getSnapshot()));
 * await stream.start({ url: location.href });
 */
export class StreamStore extends Store<StreamStoreState> {
  options: StreamOptions;
  #abort: AbortController | undefined;

  constructor(options: StreamOptions = {}) {
    super({ fold: createFoldState(), status: 'idle' });
    this.options = options;
  }

  start = async (input?: unknown): Promise<void> => {
    this.#abort?.abort();
    const abort = (this.#abort = new AbortController());
    let fold = createFoldState();
    this.set({ fold, status: 'streaming' });
    const apply = (event: Event) => {
      if (abort.signal.aborted) return;
      fold = reduceEvents(fold, event);
      this.set({ fold, status: 'streaming' }, event.type !== 'chat-finish');
    };
    try {
      const { source, ...o } = this.options;
      if (source) {
        for await (const event of await source(input, abort.signal)) {
          if (abort.signal.aborted) break;
          apply(event);
        }
      } else {
        const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(input ?? {}), signal: abort.signal };
        await readSse((await request({ api: '', ...o } as TransportOptions, '', init)).body, apply);
      }
      if (!abort.signal.aborted) this.set({ fold, status: 'done' });
    } catch (error) {
      if (!abort.signal.aborted) this.set({ fold, status: 'error', error: ParlanceError.from(error).toJSON() });
    }
  };

  /** Stops reading; what arrived is kept. */
  stop = (): void => {
    this.#abort?.abort();
    this.#abort = undefined;
    if (this.state.status === 'streaming') this.set({ fold: this.state.fold, status: 'done' });
  };
}
