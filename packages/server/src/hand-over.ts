/**
 * A graceful shutdown hands the runs an instance runs over to the others at once, instead of
 * leaving them silent until their lease lapses: each run stops reading its model, writes no
 * ending, and releases its lease in the store (`RunStore.release`), which wakes its readers on
 * other instances; the first to claim it goes on from what was stored.
 */

/**
 * Hands an app's runs over on a graceful shutdown (a deploy's SIGTERM). Give the same object to
 * `createParlanceApp({ handOver })`, then call `handOver()` when told to stop.
 *
 * @example
 * ```ts
 * const handOver = createRunHandOver();
 * const app = createParlanceApp({ run: engineRunner(), models, store, handOver });
 * process.on('SIGTERM', async () => {
 *   await handOver.handOver(); // every run released in the store: another instance goes on at once
 *   server.close();
 *   process.exit(0);
 * });
 * ```
 */
export interface RunHandOver {
  /**
   * Hands every run this app runs over, and stops taking runs over from others; resolves with how many
   * runs were handed over once each was released in the store. A run with no other instance to take
   * it waits for the next reader, whose instance takes it over (see the server README).
   */
  handOver(): Promise<number>;
  /** Whether `handOver()` was called. */
  readonly closing: boolean;
}

/** What the app does with a `RunHandOver`: register each run's trigger and work. */
export interface HandOvers {
  readonly closing: boolean;
  /** Registers a run's hand-over trigger (called at once when already closing); returns the unregistering function. */
  add(trigger: () => void): () => void;
  /** Tracks a run's work until it ends, so `handOver()` resolves after its release. */
  track(work: Promise<void>): void;
}

const REGISTRY = Symbol.for('parlance.hand-over-registry');

/**
 * A hand-over for one or more apps of this process.
 *
 * @example
 * const handOver = createRunHandOver();
 * createParlanceApp({ run: engineRunner(), models, store, handOver });
 */
export function createRunHandOver(): RunHandOver {
  // Both hold at most the runs going on in this process (bounded by the store's maxRunning).
  const triggers = new Set<() => void>();
  const works = new Set<Promise<void>>();
  let closing = false;
  const registry: HandOvers = {
    get closing() {
      return closing;
    },
    add(trigger) {
      if (closing) {
        trigger();
        return () => {};
      }
      triggers.add(trigger);
      return () => triggers.delete(trigger);
    },
    track(work) {
      works.add(work);
      void work.finally(() => works.delete(work));
    },
  };
  return {
    get closing() {
      return closing;
    },
    async handOver() {
      closing = true;
      const count = triggers.size;
      for (const trigger of [...triggers]) trigger();
      await Promise.allSettled([...works]);
      return count;
    },
    [REGISTRY]: registry,
  } as RunHandOver;
}

/** The registry of a `RunHandOver` (or a private one that is never triggered, for an app without it). */
export function handOversOf(handOver: RunHandOver | undefined): HandOvers {
  const registry = (handOver as { [REGISTRY]?: HandOvers } | undefined)?.[REGISTRY];
  if (registry) return registry;
  return { closing: false, add: () => () => {}, track: () => {} };
}
