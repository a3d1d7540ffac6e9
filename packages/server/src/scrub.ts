/**
 * The last line of defence for secrets: every event a run sends is checked for every
 * configured secret value (environment variables named like keys, the server's own
 * `secrets`, credential headers the runner was configured with, the signing secret),
 * in every form an echo may take (raw, base64, URL-encoded: `secretForms`).
 *
 * Nothing is serialized to do it: the event's strings (values and keys) are walked and
 * each is searched for each form, so a clean event costs a few `includes` and comes back
 * as the same object; only the path to a string that changed is copied. Streamed text
 * (text, reasoning and tool-call deltas, partial objects) is also checked across events:
 * the tail of a delta that may begin a secret is held back until the block's next delta
 * shows whether it does (see `Scrubber.push`).
 */
import { REDACTED, secretForms } from '@parlance/engine';
import type { Event } from '@parlance/protocol';

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
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH/i.test(name)) out.push(value);
  }
  return out;
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

type DeltaEvent = Extract<Event, { type: 'text-delta' | 'reasoning-delta' | 'tool-call-delta' }>;

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

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A scrubber for a list of secret values (values under 8 characters are ignored: they would redact ordinary words).
 *
 * @example
 * const scrubber = createScrubber([...envSecrets(env), options.secret]);
 * scrubber.event({ type: 'error', code: 'authentication', message: `bad key ${key}`, retryable: false });
 * // → { ..., message: 'bad key [redacted]' }
 */
export function createScrubber(secrets: readonly (string | undefined)[]): Scrubber {
  const raw = secretForms(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8));
  if (raw.length === 0) return { event: (event) => event, push: (event) => event, flush: () => [] };
  // A form with a quote, backslash or control character also appears JSON-escaped inside a tool call's
  // argument text; the old serializing scrubber only ever saw that escaped form.
  const all = new Set(raw);
  for (const form of raw) all.add(JSON.stringify(form).slice(1, -1));
  const forms = [...all].sort((a, b) => b.length - a.length); // longest first: a form inside another is replaced whole
  const shortest = forms[forms.length - 1]!.length;
  const longest = forms[0]!.length;
  // Numbers are serialized as digits: a secret of digits is caught in them too.
  const numeric = forms.filter((f) => /^[0-9]+$/.test(f));
  // A form that another form begins with (base64 without its padding) may still grow into the longer one at
  // the end of a delta: these are the texts from the shorter form up to the longer one less a character.
  const growing = new Set<string>();
  for (const f of forms) for (const g of forms) if (g.length > f.length && g.startsWith(f)) for (let n = f.length; n < g.length; n++) growing.add(g.slice(0, n));
  const extendable = [...growing].sort((a, b) => b.length - a.length);
  const byFirst = new Map<number, string[]>();
  /** 1 where an ASCII character begins some form: most positions of a delta are ruled out by one lookup. */
  const asciiFirst = new Uint8Array(128);
  for (const form of forms) {
    const code = form.charCodeAt(0);
    if (code < 128) asciiFirst[code] = 1;
    const list = byFirst.get(code);
    if (list) list.push(form);
    else byFirst.set(code, [form]);
  }

  function scrubString(text: string): string {
    if (text.length < shortest) return text;
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  }

  function scrubValue(value: unknown): unknown {
    if (typeof value === 'string') return scrubString(value);
    if (typeof value !== 'object' || value === null) {
      if (numeric.length > 0 && typeof value === 'number') {
        const digits = String(value);
        const clean = scrubString(digits);
        return clean === digits ? value : clean;
      }
      return value;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const clean = scrubValue(item);
        if (clean !== item) (copy ??= value.slice())[i] = clean;
      }
      return copy ?? value;
    }
    // What JSON.stringify would send for it (a Date, a boxed string, a class with toJSON).
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function' || value instanceof String || value instanceof Number) {
      const json: unknown = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value.valueOf();
      const clean = scrubValue(json);
      return clean === json ? value : clean;
    }
    const object = value as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const key in object) {
      if (!hasOwn.call(object, key)) continue;
      const item = object[key];
      const clean = scrubValue(item);
      const cleanKey = scrubString(key);
      if (clean === item && cleanKey === key) continue;
      copy ??= { ...object };
      if (cleanKey !== key) delete copy[key];
      // Defined, not assigned: an own "__proto__" key must stay a key.
      Object.defineProperty(copy, cleanKey, { value: clean, writable: true, enumerable: true, configurable: true });
    }
    return copy ?? object;
  }

  /** Where the held tail of `text` starts: the earliest position from which the rest is a proper prefix of some form (`text.length` if none). */
  function holdFrom(text: string): number {
    const end = text.length;
    for (let at = Math.max(0, end - longest + 1); at < end; at++) {
      const code = text.charCodeAt(at);
      if (code < 128 && asciiFirst[code] === 0) continue;
      const candidates = byFirst.get(code);
      if (candidates === undefined) continue;
      const rest = end - at;
      for (const form of candidates) {
        if (form.length <= rest) continue; // a whole form was redacted; a longer rest is not its prefix
        let i = 1;
        while (i < rest && form.charCodeAt(i) === text.charCodeAt(at + i)) i++;
        if (i === rest) return at;
      }
    }
    return end;
  }

  interface Held {
    type: DeltaEvent['type'];
    text: string;
  }
  /** Held text per block id, in the order the blocks were first held. */
  const held = new Map<string, Held>();

  // Held text may end in a whole extendable form (see `pushDelta`): scrubbed again when it goes out.
  const releaseOf = (id: string, h: Held): Event => ({ type: h.type, id, delta: scrubString(h.text) });

  function release(id: string, released: Event[]): void {
    const h = held.get(id);
    if (h === undefined) return;
    held.delete(id);
    released.push(releaseOf(id, h));
  }

  /**
   * The latest `object-delta` whose last string may be the beginning of a secret. A partial object is
   * a snapshot (strings cut anywhere), so it is held whole: the next snapshot replaces it, and it goes
   * out only if none came before a release (the last one, in full).
   */
  let heldObject: Event | undefined;

  function releaseAll(released: Event[]): void {
    for (const [id, h] of held) released.push(releaseOf(id, h));
    held.clear();
    if (heldObject !== undefined) released.push(heldObject);
    heldObject = undefined;
  }

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

  function pushDelta(event: DeltaEvent, released: Event[]): Event | undefined {
    const scrubbed = scrubValue(event) as DeltaEvent;
    let before = held.size > 0 ? held.get(event.id) : undefined;
    if (before !== undefined && before.type !== event.type) {
      release(event.id, released); // the same id reused by another kind of block: not one text
      before = undefined;
    }
    const raw = before === undefined ? event.delta : before.text + event.delta;
    let text = before === undefined ? scrubbed.delta : scrubString(raw);
    // A whole form at the very end that a longer form begins with is held as it is, so that the longer one
    // (its padding may be in the next delta) is replaced whole, as it would be in the joined text.
    if (text !== raw) {
      for (const form of extendable) {
        if (!raw.endsWith(form)) continue;
        text = scrubString(raw.slice(0, raw.length - form.length)) + form;
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

  return {
    event: (event) => scrubValue(event) as Event,
    push(event, released) {
      switch (event.type) {
        case 'text-delta':
        case 'reasoning-delta':
        case 'tool-call-delta':
          return pushDelta(event, released);
        case 'text-end':
        case 'reasoning-end':
        case 'tool-call-end':
          if (held.size > 0) release(event.id, released);
          break;
        case 'object-delta': {
          const scrubbed = scrubValue(event) as Event & { object: unknown };
          const last = lastString(scrubbed.object);
          heldObject = last !== undefined && holdFrom(last) < last.length ? scrubbed : undefined;
          return heldObject === undefined ? scrubbed : undefined;
        }
        default:
          if ((held.size > 0 || heldObject !== undefined) && !PASSES_HELD.has(event.type)) releaseAll(released);
      }
      return scrubValue(event) as Event;
    },
    flush() {
      const released: Event[] = [];
      releaseAll(released);
      return released;
    },
  };
}
