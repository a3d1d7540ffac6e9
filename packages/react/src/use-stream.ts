/** useStream: folds any protocol event stream (`source`) or an SSE endpoint (`api`) into a response and its text. */
import { StreamStore, type StreamOptions } from '@parlance/client';
import { messageText, toResponse } from '@parlance/protocol';
import { useEffect, useMemo, useState, useSyncExternalStore } from 'react';

export function useStream(options: StreamOptions) {
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
