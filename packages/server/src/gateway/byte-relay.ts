/**
 * A same-format stream's bytes, as the provider sent them, on their way to the caller
 * (`ModelCallOptions.onBytes`): the gateway forwards them unchanged instead of re-encoding the
 * decoded events, and still reads usage, the finish and failures from those events.
 */
import type { Provenance } from '@parlance/protocol';

/**
 * The chunks read from the upstream and not yet forwarded. Bound: chunks are held only until the
 * answer's first content (the preamble a failure may still turn into an HTTP error), then each
 * pull of the caller's stream forwards what one read of the upstream returned; once the relay is
 * `stop`ped (the answer is re-encoded instead) nothing more is held.
 */
export interface ByteRelay {
  /** The `onBytes` hook: keeps a chunk, dropping what an earlier attempt (retry, fallback) had sent. */
  see(chunk: Uint8Array, from: Provenance): void;
  /** Whether the held bytes are the answer's: sent, in the caller's format, by the model that answered (`undefined`: unknown, so not). */
  answers(answered: Provenance | undefined): boolean;
  /** The held chunks, handed out once. */
  take(): Uint8Array[];
  /** Nothing more is kept (the answer is re-encoded). */
  stop(): void;
}

/**
 * Whether what a model reported (bytes, a body) is the answer's: the model that answered (its `message-start`'s
 * provenance) is known and is the sender. Unknown is not: after a fallback to a model that reports nothing (an
 * app's own `LanguageModel`), what was reported is the failed model's.
 *
 * @example
 * if (sentBy(tally.provenance, body.from)) return body.body;
 */
export function sentBy(answered: Provenance | undefined, sender: Provenance): boolean {
  return answered !== undefined && answered.provider === sender.provider && answered.model === sender.model && answered.dialect === sender.dialect;
}

/**
 * A relay for a caller speaking `dialect`.
 *
 * @example
 * const relay = createByteRelay('anthropic_messages');
 * model.stream(request, { onBytes: relay.see });
 */
export function createByteRelay(dialect: string): ByteRelay {
  let held: Uint8Array[] = [];
  let from: Provenance | undefined;
  let stopped = false;
  return {
    see(chunk, sender) {
      if (stopped) return;
      // One `from` object per attempt: a new attempt's bytes replace a failed one's.
      if (sender !== from) {
        from = sender;
        held = [];
      }
      held.push(chunk);
    },
    answers(answered) {
      return !stopped && from?.dialect === dialect && sentBy(answered, from);
    },
    take() {
      const out = held;
      held = [];
      return out;
    },
    stop() {
      stopped = true;
      held = [];
    },
  };
}
