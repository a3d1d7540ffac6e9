/**
 * The last line of defence for secrets: every event a run sends is checked for every
 * configured secret value (environment variables named like keys, the server's own
 * `secrets`, credential headers the runner was configured with, the signing secret),
 * in every form an echo may take (raw, `Bearer`, `Basic` user:key, base64 at every alignment,
 * URL-encoded, JSON-escaped, hex: `secretForms` in @parlance/engine).
 *
 * Nothing is serialized to do it: the event's strings (values and keys) are walked and
 * each is searched for each form, so a clean event costs a few `includes` and comes back
 * as the same object; only the path to a string that changed is copied. Streamed text
 * (text, reasoning and tool-call deltas, partial objects) is also checked across events:
 * the tail of a delta that may begin a secret is held back until the block's next delta
 * shows whether it does (see `Scrubber.push`).
 */
import { envSecrets as engineEnvSecrets } from '@parlance/engine';
import type { Event } from '@parlance/protocol';
import { createBlockCarry } from './scrub/block-carry.ts';
import { createEventWalk } from './scrub/event-walk.ts';
import { createFormMatcher } from './scrub/form-matcher.ts';

/**
 * The runtime's environment: `process.env`, or a Worker's bindings.
 *
 * @example
 * models: (env: Env) => (env.OPENAI_API_KEY ? catalogModels(['openai:gpt-5-mini']) : [])
 */
export type Env = Record<string, string | undefined>;

/**
 * Values of secret-looking environment variables (named like KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL, AUTH; 8+ characters).
 *
 * @example
 * const scrubber = createScrubber([...envSecrets(process.env), signingSecret]);
 */
export function envSecrets(env: Env): string[] {
  // One rule for the server's scrubber and the engine's span guard (see `envSecrets` in @parlance/engine).
  return engineEnvSecrets(env);
}

/**
 * One run's secret scrubber (see `createScrubber`). `push` keeps per-block state: use one per run.
 *
 * @example
 * const scrubber = createScrubber([process.env.OPENAI_API_KEY]);
 * const released: Event[] = [];
 * for await (const event of events) {
 *   const clean = scrubber.push(event, released);
 *   for (const r of released) send(r);
 *   released.length = 0;
 *   if (clean) send(clean);
 * }
 * for (const r of scrubber.flush()) send(r); // a stream that ended mid-block
 */
export interface Scrubber {
  /** One whole event with every form of every secret replaced by `[redacted]`; the same object when it holds none. Keeps no state. */
  event(event: Event): Event;
  /**
   * The stream's next event, scrubbed like `event`, except that a text, reasoning or tool-call delta is
   * checked together with the text held back from its block, and the end of the result that is the
   * beginning of some secret form (at most the longest form's length less one character) is held back
   * again. Returns `undefined` when the whole delta is held. Held text this event must follow (its
   * block's end, or any event that closes or moves past the message: finish, error, chat-finish,
   * message-start, step-finish, run-paused, summary, or an unknown type) is appended to `released`
   * first, as deltas of its block. A clean delta with nothing held comes back as the same object.
   * An `object-delta` (a snapshot of a partial object) whose last string ends in the beginning of a
   * form is held whole and replaced by the next snapshot, or released like held text.
   */
  push(event: Event, released: Event[]): Event | undefined;
  /** Every held text as deltas of its block, in the order the blocks were held (a run that ended mid-block); nothing is held afterwards. */
  flush(): Event[];
}

/** Events that held text may be passed over: they neither close a block nor start another message. */
const PASSES_HELD = new Set<string>([
  'text-start',
  'reasoning-start',
  'tool-call-start',
  'tool-result',
  'source',
  'file',
  'usage',
  'warning',
  'compaction',
  'object-delta',
  'step-start',
  'approval-requested',
  'ask-user',
]);

/**
 * A scrubber for a list of secret values (values under 8 characters are ignored: they would redact ordinary words).
 * Three phases, each in its own file and testable alone: the secret forms (`scrub/form-matcher.ts`),
 * walking an event's strings (`scrub/event-walk.ts`), and the per-block carry of a streamed
 * secret's beginning (`scrub/block-carry.ts`); this function only routes events between them.
 *
 * @example
 * const scrubber = createScrubber([...envSecrets(env), options.secret]);
 * scrubber.event({ type: 'error', code: 'authentication', message: `bad key ${key}`, retryable: false });
 * // → { ..., message: 'bad key [redacted]' }
 */
export function createScrubber(secrets: readonly (string | undefined)[]): Scrubber {
  const matcher = createFormMatcher(secrets);
  if (matcher === undefined) return { event: (event) => event, push: (event) => event, flush: () => [] };
  const walk = createEventWalk(matcher);
  const carry = createBlockCarry(matcher, walk);
  return {
    event: (event) => walk(event) as Event,
    push(event, released) {
      switch (event.type) {
        case 'text-delta':
        case 'reasoning-delta':
        case 'tool-call-delta':
          return carry.delta(event, released);
        case 'text-end':
        case 'reasoning-end':
        case 'tool-call-end':
          carry.end(event.id, released);
          break;
        case 'object-delta':
          return carry.object(event, released);
        default:
          if (!PASSES_HELD.has(event.type) && carry.holding()) carry.releaseAll(released);
      }
      return walk(event) as Event;
    },
    flush() {
      const released: Event[] = [];
      carry.releaseAll(released);
      return released;
    },
  };
}
