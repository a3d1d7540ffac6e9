/**
 * Phase three of the scrubber: what is carried between a stream's events. A secret split across
 * two deltas of one block is in neither alone, so the end of a delta that may begin some form is
 * held back (per block id) and sent with the block's next delta, or just before whatever must
 * follow it. Bounded: at most `longest - 1` characters per open block, and one partial object.
 */
import type { Event } from '@parlance/protocol';
import type { FormMatcher } from './form-matcher.ts';

/** A streamed delta of a text, reasoning or tool-call block. */
export type DeltaEvent = Extract<Event, { type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta' }>;

/**
 * The per-run carry state (see `createBlockCarry`).
 *
 * @example
 * const carry = createBlockCarry(matcher, walk);
 * const out = carry.delta(event, released); // undefined while the whole delta is held
 */
export interface BlockCarry {
  /** A delta scrubbed together with its block's held text; the end that may begin a form is held again. */
  delta(event: DeltaEvent, released: Event[]): Event | undefined;
  /** The block ended: its held text goes out first (appended to `released`). */
  end(id: string, released: Event[]): void;
  /** A partial-object snapshot: held whole while its last string may begin a form (the next replaces it). */
  object(event: Event & { object: unknown }, released: Event[]): Event | undefined;
  /** Everything held, as deltas of their blocks (and the held snapshot), appended to `released`. */
  releaseAll(released: Event[]): void;
  /** Whether anything is held. */
  holding(): boolean;
}

interface Held {
  type: DeltaEvent['type'];
  text: string;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** The string a partial object is still writing, if any: its last value, in document order. */
function lastString(value: unknown): string | undefined {
  for (let depth = 0; depth < 64; depth++) {
    if (typeof value === 'string') return value;
    if (typeof value !== 'object' || value === null) return undefined;
    if (Array.isArray(value)) value = value[value.length - 1];
    else {
      let last: unknown;
      for (const key in value) if (hasOwn.call(value, key)) last = (value as Record<string, unknown>)[key];
      value = last;
    }
  }
  return undefined;
}

/**
 * The carry state of one run.
 *
 * @example
 * const carry = createBlockCarry(createFormMatcher([key])!, createEventWalk(matcher));
 */
export function createBlockCarry(matcher: FormMatcher, walk: (value: unknown) => unknown): BlockCarry {
  const { scrub, holdFrom, extendable } = matcher;
  /** Held text per block id, in the order the blocks were first held. */
  const held = new Map<string, Held>();
  /** The latest `object-delta` whose last string may be the beginning of a secret. */
  let heldObject: Event | undefined;

  // Held text may end in a whole extendable form (see `delta`): scrubbed again when it goes out.
  const releaseOf = (id: string, h: Held): Event => ({ type: h.type, id, delta: scrub(h.text) });

  function end(id: string, released: Event[]): void {
    const h = held.size > 0 ? held.get(id) : undefined;
    if (h === undefined) return;
    held.delete(id);
    released.push(releaseOf(id, h));
  }

  function delta(event: DeltaEvent, released: Event[]): Event | undefined {
    const scrubbed = walk(event) as DeltaEvent;
    let before = held.size > 0 ? held.get(event.id) : undefined;
    if (before !== undefined && before.type !== event.type) {
      end(event.id, released); // the same id reused by another kind of block: not one text
      before = undefined;
    }
    const raw = before === undefined ? event.delta : before.text + event.delta;
    let text = before === undefined ? scrubbed.delta : scrub(raw);
    // A whole form at the very end that a longer form begins with is held as it is, so that the longer one
    // (its padding may be in the next delta) is replaced whole, as it would be in the joined text.
    if (text !== raw) {
      for (const form of extendable) {
        if (!raw.endsWith(form)) continue;
        text = scrub(raw.slice(0, raw.length - form.length)) + form;
        break;
      }
    }
    const cut = holdFrom(text);
    if (cut === text.length) {
      if (before !== undefined) held.delete(event.id);
      return text === scrubbed.delta ? scrubbed : { ...scrubbed, delta: text };
    }
    const tail = text.slice(cut);
    if (before !== undefined) before.text = tail;
    else held.set(event.id, { type: event.type, text: tail });
    return cut === 0 ? undefined : { ...scrubbed, delta: text.slice(0, cut) };
  }

  function object(event: Event & { object: unknown }): Event | undefined {
    const scrubbed = walk(event) as Event & { object: unknown };
    const last = lastString(scrubbed.object);
    heldObject = last !== undefined && holdFrom(last) < last.length ? scrubbed : undefined;
    return heldObject === undefined ? scrubbed : undefined;
  }

  function releaseAll(released: Event[]): void {
    for (const [id, h] of held) released.push(releaseOf(id, h));
    held.clear();
    if (heldObject !== undefined) released.push(heldObject);
    heldObject = undefined;
  }

  return { delta, end, object, releaseAll, holding: () => held.size > 0 || heldObject !== undefined };
}
