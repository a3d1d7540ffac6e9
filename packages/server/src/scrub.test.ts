import { REDACTED, secretForms } from '@parlance/engine';
import type { Event } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../dialects/test/conformance.ts';
// The whole-text redaction (not in the engine's public surface): what the joined deltas must equal.
import { redact } from '../../engine/src/transport/redact.ts';
import { createScrubber, type Scrubber } from './scrub.ts';

// URL-encodes to something else, and its base64 holds a '+' (so base64url differs) and padding.
const SECRET = 'sk-live-Abc/def+123=XY~~>';
const OTHER = 'ghp_0123456789abcdefOTHER';
const FORMS = secretForms([SECRET]);
const ALL_FORMS = [...FORMS, ...secretForms([OTHER])];
const bytesOf = (text: string) => new TextEncoder().encode(text);
const hexOf = (text: string) => [...bytesOf(text)].map((b) => b.toString(16).padStart(2, '0')).join('');
/** The longest form inside `text` (e.g. the base64 core of the secret at one alignment). */
const coreIn = (text: string) => FORMS.find((f) => text.includes(f))!;
const REPRESENTATIVE = [SECRET, encodeURIComponent(SECRET), hexOf(SECRET), btoa(SECRET), coreIn(btoa(`B${SECRET}`)), coreIn(btoa(`Be${SECRET}`)), JSON.stringify(SECRET).slice(1, -1)];

type DeltaType = 'text-delta' | 'reasoning-delta' | 'tool-call-delta';
const DELTA_TYPES: DeltaType[] = ['text-delta', 'reasoning-delta', 'tool-call-delta'];

/** What a run sends for `events`: each event's released text, then the event; at the end what is still held. */
function stream(scrubber: Scrubber, events: Event[]): Event[] {
  const out: Event[] = [];
  const released: Event[] = [];
  for (const event of events) {
    const clean = scrubber.push(event, released);
    out.push(...released);
    released.length = 0;
    if (clean !== undefined) out.push(clean);
  }
  out.push(...scrubber.flush());
  return out;
}

function deltas(type: DeltaType, pieces: string[], id = 'b1'): Event[] {
  return pieces.map((delta) => ({ type, id, delta }) as Event);
}

/** The text of block `id` as a client joins it. */
function joined(events: Event[], id = 'b1'): string {
  return events.map((e) => (e.type.endsWith('-delta') && (e as { id: string }).id === id ? (e as { delta: string }).delta : '')).join('');
}

function expectNoForm(events: Event[], forms = FORMS): void {
  const wire = JSON.stringify(events);
  for (const form of forms) expect(wire).not.toContain(form);
}

describe('createScrubber: whole events', () => {
  const scrubber = createScrubber([SECRET]);

  it.each(FORMS)('replaces the form %s in values, keys, nested objects and arrays, and echoed header values', (form) => {
    const output = {
      ok: { untouched: [1, 2, 3] },
      nested: [{ deep: [`x${form}y`] }, 'plain'],
      [`key-${form}`]: 1,
      headers: { authorization: `Bearer ${form}`, 'content-type': 'application/json' },
    };
    const event: Event = { type: 'tool-result', toolCallId: 'c1', name: 'fetch', output };
    const clean = scrubber.event(event) as Extract<Event, { type: 'tool-result' }>;
    expectNoForm([clean]);
    expect(clean.output).toEqual({
      ok: { untouched: [1, 2, 3] },
      nested: [{ deep: [`x${REDACTED}y`] }, 'plain'],
      [`key-${REDACTED}`]: 1,
      headers: { authorization: `Bearer ${REDACTED}`, 'content-type': 'application/json' },
    });
    // Only the path to a change is copied; the input is left as it was.
    expect((clean.output as typeof output).ok).toBe(output.ok);
    expect(output.nested[0]).toEqual({ deep: [`x${form}y`] });
  });

  it('scrubs an error message, a chat-finish thread and a tool-call-end input', () => {
    const error: Event = { type: 'error', code: 'authentication', message: `Incorrect API key provided: ${SECRET}`, retryable: false };
    expect(scrubber.event(error)).toEqual({ ...error, message: `Incorrect API key provided: ${REDACTED}` });
    const finish: Event = {
      type: 'chat-finish',
      haltReason: 'completed',
      usage: {},
      thread: { id: 't', messages: [{ id: 'm', role: 'assistant', parts: [{ type: 'text', text: `the key is ${SECRET}` }] }] },
    } as Event;
    expectNoForm([scrubber.event(finish)]);
    const end: Event = { type: 'tool-call-end', id: 'c1', input: { key: FORMS[2], list: [SECRET] } };
    expect(scrubber.event(end)).toEqual({ type: 'tool-call-end', id: 'c1', input: { key: REDACTED, list: [REDACTED] } });
  });

  it('catches a secret JSON-escaped inside tool-call argument text, and a secret of digits inside a number', () => {
    const quoted = createScrubber(['pass"word\\1234']);
    const text = JSON.stringify({ password: 'pass"word\\1234' });
    const delta = quoted.event({ type: 'tool-call-delta', id: 'c1', delta: text }) as { delta: string };
    expect(JSON.parse(delta.delta)).toEqual({ password: REDACTED });
    const digits = createScrubber(['12345678901']);
    expect(digits.event({ type: 'tool-result', toolCallId: 'c', name: 'n', output: { pin: 12345678901 } })).toMatchObject({ output: { pin: REDACTED } });
  });

  it('keeps an own "__proto__" key a key when its value is scrubbed', () => {
    const output = JSON.parse(`{"__proto__":{"token":"${SECRET}"}}`) as unknown;
    const clean = scrubber.event({ type: 'tool-result', toolCallId: 'c', name: 'n', output }) as { output: object };
    expect(Object.getPrototypeOf(clean.output)).toBe(Object.prototype);
    expect(JSON.stringify(clean.output)).toBe(`{"__proto__":{"token":"${REDACTED}"}}`);
  });

  it('returns the very same object for an event with no secret, and ignores values under 8 characters', () => {
    const events: Event[] = [
      { type: 'text-delta', id: 'b', delta: 'Hello there' },
      { type: 'tool-call-end', id: 'c', input: { city: 'Paris', days: [1, 2] } },
      { type: 'chat-finish', haltReason: 'completed', usage: { inputTokens: 3 } },
    ];
    for (const event of events) expect(scrubber.event(event)).toBe(event);
    const none = createScrubber(['short', undefined]);
    const event: Event = { type: 'text-delta', id: 'b', delta: 'short' };
    expect(none.event(event)).toBe(event);
  });
});

describe('createScrubber: streamed deltas', () => {
  it('passes plain text through as the same objects and holds nothing', () => {
    const scrubber = createScrubber([SECRET]);
    // An "s" or "c" inside a delta is not held: only a tail that begins a form ("sk-…", base64 "c2st…") is.
    const events: Event[] = [
      { type: 'text-start', id: 'b1' },
      ...deltas('text-delta', ['Hello, this is fine', ' and calm', ', really fine.', ' Thank you!']),
      { type: 'text-end', id: 'b1' },
      { type: 'chat-finish', haltReason: 'completed', usage: {} },
    ];
    const released: Event[] = [];
    for (const event of events) {
      expect(scrubber.push(event, released)).toBe(event);
      expect(released).toEqual([]);
    }
    expect(scrubber.flush()).toEqual([]);
  });

  for (const type of DELTA_TYPES) {
    it(`${type}: redacts every form cut at every position across two deltas`, { timeout: 60_000 }, () => {
      for (const form of FORMS) {
        const text = `key: ${form} ok`;
        for (let cut = 1; cut < text.length; cut++) {
          const out = stream(createScrubber([SECRET]), deltas(type, [text.slice(0, cut), text.slice(cut)]));
          expect(joined(out)).toBe(`key: ${REDACTED} ok`);
          expectNoForm(out);
        }
      }
    });

    // Every kind of form (raw, URL-encoded, hex, whole base64 and each alignment's core, JSON-escaped), not all 30.
    it(`${type}: redacts every kind of form cut at every two positions across three deltas`, { timeout: 60_000 }, () => {
      for (const form of REPRESENTATIVE) {
        const text = `${form}.`;
        for (let a = 1; a < text.length - 1; a++) {
          for (let b = a + 1; b < text.length; b++) {
            const out = stream(createScrubber([SECRET]), deltas(type, [text.slice(0, a), text.slice(a, b), text.slice(b)]));
            expect(joined(out)).toBe(`${REDACTED}.`);
            expectNoForm(out);
          }
        }
      }
    });
  }

  it('holds back only the tail that begins a form, and releases it with the next delta', () => {
    const scrubber = createScrubber([SECRET]);
    const released: Event[] = [];
    expect(scrubber.push({ type: 'text-delta', id: 'b1', delta: 'the key is sk-li' }, released)).toEqual({ type: 'text-delta', id: 'b1', delta: 'the key is ' });
    expect(scrubber.push({ type: 'text-delta', id: 'b1', delta: 've' }, released)).toBeUndefined();
    expect(scrubber.push({ type: 'text-delta', id: 'b1', delta: 'ly here' }, released)).toEqual({ type: 'text-delta', id: 'b1', delta: 'sk-lively here' });
    expect(released).toEqual([]);
    expect(scrubber.flush()).toEqual([]);
  });

  it.each<[string, Event]>([
    ['its block ends', { type: 'text-end', id: 'b1' }],
    ['the model finishes', { type: 'finish', finishReason: 'stop', usage: {} }],
    ['the run finishes', { type: 'chat-finish', haltReason: 'completed', usage: {} }],
    ['an error comes', { type: 'error', code: 'server_error', message: 'x', retryable: false }],
    ['another message starts', { type: 'message-start', messageId: 'm2' }],
  ])('releases held text before the event when %s', (_, event) => {
    const out = stream(createScrubber([SECRET]), [{ type: 'text-delta', id: 'b1', delta: 'ends in sk-live' }, event]);
    expect(out).toEqual([{ type: 'text-delta', id: 'b1', delta: 'ends in ' }, { type: 'text-delta', id: 'b1', delta: 'sk-live' }, event]);
  });

  it('keeps holding across other blocks and events that do not close it, and gives back what a run that ended mid-block held', () => {
    const scrubber = createScrubber([SECRET]);
    const out = stream(scrubber, [
      { type: 'text-delta', id: 'b1', delta: `a ${SECRET.slice(0, 5)}` },
      { type: 'tool-call-start', id: 'c1', name: 'lookup' },
      { type: 'tool-call-delta', id: 'c1', delta: `{"k":"${SECRET.slice(0, 9)}` },
      { type: 'usage', usage: { inputTokens: 1 } },
      { type: 'text-delta', id: 'b1', delta: `${SECRET.slice(5)} b` },
      { type: 'tool-call-delta', id: 'c1', delta: SECRET.slice(9, 12) },
    ]);
    expect(joined(out, 'b1')).toBe(`a ${REDACTED} b`);
    // The run ended mid-call: its held argument text comes back (flush), not lost.
    expect(joined(out, 'c1')).toBe(`{"k":"${SECRET.slice(0, 12)}`);
    expect(out.at(-1)).toEqual({ type: 'tool-call-delta', id: 'c1', delta: SECRET.slice(0, 12) });
    expect(scrubber.flush()).toEqual([]);
  });

  it('a tool call whose argument text carries a split secret: the deltas join to arguments that parse, and the end event is scrubbed', () => {
    const args = JSON.stringify({ url: `https://api.example.com/?key=${encodeURIComponent(SECRET)}`, auth: SECRET });
    const out = stream(createScrubber([SECRET]), [
      { type: 'tool-call-start', id: 'c1', name: 'fetch' },
      ...deltas('tool-call-delta', [args.slice(0, 40), args.slice(40, 70), args.slice(70)], 'c1'),
      { type: 'tool-call-end', id: 'c1', input: JSON.parse(args) as unknown },
    ]);
    const expected = { url: `https://api.example.com/?key=${REDACTED}`, auth: REDACTED };
    expect(JSON.parse(joined(out, 'c1'))).toEqual(expected);
    expect(out.at(-1)).toEqual({ type: 'tool-call-end', id: 'c1', input: expected });
    expectNoForm(out);
  });

  it('holds a partial object whose last string may begin a secret until a later snapshot replaces it, and releases the last one', () => {
    const snapshots = [
      { note: 'ok', key: SECRET.slice(0, 2) },
      { note: 'ok', key: SECRET.slice(0, 9) },
      { note: 'ok', key: SECRET },
      { note: 'ok', key: SECRET, n: 1 },
      { note: 'ok', key: SECRET, n: 1, tail: 'was' },
    ];
    const out = stream(
      createScrubber([SECRET]),
      snapshots.map((object) => ({ type: 'object-delta', object }) as Event),
    );
    // The snapshots ending in "sk" and "sk-live-A" never go out; the whole secret is redacted; "was" ends in "s", so that
    // last snapshot is held until the stream ends, and then sent as it is.
    expect(out.map((e) => (e as { object: unknown }).object)).toEqual([
      { note: 'ok', key: REDACTED },
      { note: 'ok', key: REDACTED, n: 1 },
      { note: 'ok', key: REDACTED, n: 1, tail: 'was' },
    ]);
    const barrier = stream(createScrubber([SECRET]), [{ type: 'object-delta', object: { key: 'sk-l' } }, { type: 'finish', finishReason: 'stop', usage: {} }]);
    expect(barrier.map((e) => e.type)).toEqual(['object-delta', 'finish']);
  });

  it('joins text cut at random boundaries to the text with every secret replaced, and no delta carries a form (seeded, 400 texts)', { timeout: 60_000 }, () => {
    const random = seededRandom(16);
    const words = ['the', 'key', 'is', 'sk-', 'sk-live', 'c2st', 'ghp_', 'héllo', '🙂', '\n', 'ok,', 'Abc/def'];
    const secrets = [SECRET, OTHER];
    const longest = Math.max(...ALL_FORMS.map((f) => f.length));
    for (let round = 0; round < 400; round++) {
      let text = '';
      const length = 5 + Math.floor(random() * 25);
      for (let w = 0; w < length; w++) {
        text += random() < 0.15 ? ALL_FORMS[Math.floor(random() * ALL_FORMS.length)]! : words[Math.floor(random() * words.length)]!;
        if (random() < 0.6) text += ' ';
      }
      const cuts = [...new Set(Array.from({ length: 1 + Math.floor(random() * 30) }, () => Math.floor(random() * text.length)))].sort((a, b) => a - b);
      const pieces = [0, ...cuts].map((from, i) => text.slice(from, [...cuts, text.length][i])).filter((p) => p !== '');
      const type = DELTA_TYPES[round % 3]!;
      const ending: Event[] = round % 2 === 0 ? [{ type: type.replace('-delta', '-end'), id: 'b1' } as Event] : [];
      const context = `seed 16, round ${round}: ${JSON.stringify(pieces)}`;
      const scrubber = createScrubber(secrets);
      const out: Event[] = [];
      const released: Event[] = [];
      let received = '';
      for (const event of deltas(type, pieces)) {
        const clean = scrubber.push(event, released);
        out.push(...released.splice(0), ...(clean ? [clean] : []));
        received += (event as { delta: string }).delta;
        // What is held back is the end of what was received, and shorter than the longest form.
        const sent = joined(out);
        const due = redact(received, secrets);
        expect(due.startsWith(sent), context).toBe(true);
        expect(due.length - sent.length, context).toBeLessThan(longest);
      }
      out.push(...stream(scrubber, ending));
      expect(joined(out), context).toBe(redact(text, secrets));
      for (const event of out) {
        if ('delta' in event) for (const form of ALL_FORMS) expect(event.delta, context).not.toContain(form);
      }
      expect(scrubber.flush()).toEqual([]);
    }
  });
});
