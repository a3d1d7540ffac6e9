/**
 * Phase two of the scrubber: walking a value (an event) and scrubbing every string in it, values
 * and keys, at any depth, and numbers when a secret is all digits. Nothing is serialized: a clean
 * value costs a few `includes` and comes back as the same object; only the path to a string that
 * changed is copied.
 */
import type { FormMatcher } from './form-matcher.ts';

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A function that returns `value` with every form of every secret replaced (the same value when clean).
 *
 * @example
 * const walk = createEventWalk(createFormMatcher([key])!);
 * walk({ type: 'error', message: `bad ${key}` }); // { type: 'error', message: 'bad [redacted]' }
 */
export function createEventWalk(matcher: Pick<FormMatcher, 'scrub' | 'numeric'>): (value: unknown) => unknown {
  const { scrub, numeric } = matcher;
  function walk(value: unknown): unknown {
    if (typeof value === 'string') return scrub(value);
    if (typeof value !== 'object' || value === null) {
      if (numeric.length > 0 && typeof value === 'number') {
        const digits = String(value);
        const clean = scrub(digits);
        return clean === digits ? value : clean;
      }
      return value;
    }
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const clean = walk(item);
        if (clean !== item) (copy ??= value.slice())[i] = clean;
      }
      return copy ?? value;
    }
    // What JSON.stringify would send for it (a Date, a boxed string, a class with toJSON).
    if (typeof (value as { toJSON?: unknown }).toJSON === 'function' || value instanceof String || value instanceof Number) {
      const json: unknown = typeof (value as { toJSON?: unknown }).toJSON === 'function' ? (value as { toJSON: () => unknown }).toJSON() : value.valueOf();
      const clean = walk(json);
      return clean === json ? value : clean;
    }
    const object = value as Record<string, unknown>;
    let copy: Record<string, unknown> | undefined;
    for (const key in object) {
      if (!hasOwn.call(object, key)) continue;
      const item = object[key];
      const clean = walk(item);
      const cleanKey = scrub(key);
      if (clean === item && cleanKey === key) continue;
      copy ??= { ...object };
      if (cleanKey !== key) delete copy[key];
      // Defined, not assigned: an own "__proto__" key must stay a key.
      Object.defineProperty(copy, cleanKey, { value: clean, writable: true, enumerable: true, configurable: true });
    }
    return copy ?? object;
  }
  return walk;
}
