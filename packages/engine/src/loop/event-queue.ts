/**
 * The bridge between the run (which pushes events from parallel work) and its
 * reader (which pulls with `for await`). A reader that stops early (`break`)
 * cancels the run through `onReturn`.
 */
export interface EventQueue<T> extends AsyncIterable<T> {
  push(value: T): void;
  end(): void;
}

export function createEventQueue<T>(onReturn: () => void): EventQueue<T> {
  const buffer: T[] = [];
  let ended = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  return {
    push(value) {
      if (ended) return;
      buffer.push(value);
      notify();
    },
    end() {
      ended = true;
      notify();
    },
    [Symbol.asyncIterator]() {
      return {
        async next(): Promise<IteratorResult<T>> {
          while (buffer.length === 0 && !ended) await new Promise<void>((resolve) => (wake = resolve));
          if (buffer.length > 0) return { value: buffer.shift()!, done: false };
          return { value: undefined, done: true };
        },
        async return(): Promise<IteratorResult<T>> {
          if (!ended) onReturn();
          ended = true;
          buffer.length = 0;
          return { value: undefined, done: true };
        },
      };
    },
  };
}
