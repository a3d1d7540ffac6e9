/** useStream: folds any protocol event stream (`source`) or an SSE endpoint (`api`) into a response and its text. */
import { StreamStore, type StreamOptions, type StreamStoreState } from '@parlance/client';
import { messageText, toResponse, type Response } from '@parlance/protocol';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';

/**
 * What `useStream` returns: the folded `response` so far (undefined before the first event), its
 * `text`, the stream's `status` and `error`, `start` / `stop`, and the `store`.
 *
 * @example
 * function Answer({ stream }: { stream: UseStreamResult }) {
 *   return <p aria-busy={stream.status === 'streaming'}>{stream.text}</p>;
 * }
 */
export interface UseStreamResult {
  response: Response | undefined;
  text: string;
  status: StreamStoreState['status'];
  error: StreamStoreState['error'];
  start: StreamStore['start'];
  stop: StreamStore['stop'];
  store: StreamStore;
}

/**
 * Folds one protocol event stream (`source`) or an SSE endpoint (`api`) into a response and its text,
 * with the same fold the chat uses.
 *
 * @example
 * const { text, status, start } = useStream({ api: '/api/summarize' });
 * // <button onClick={() => start()}>Summarize</button> <p>{text}</p>
 */
export function useStream(options: StreamOptions): UseStreamResult {
  const [store] = useState(() => new StreamStore(options));
  useEffect(() => {
    store.options = options;
  });
  useEffect(() => store.stop, [store]);
  const { fold, status, error } = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const result = useMemo(() => {
    const response = fold.current < 0 ? undefined : toResponse(fold);
    return { response, text: response ? messageText(response.message) : '' };
  }, [fold]);
  return { ...result, status, error, start: store.start, stop: store.stop, store };
}
