/**
 * Phase one of the scrubber: the secret forms and the two questions asked of text. `scrub`
 * replaces every whole form; `holdFrom` says where a text's end may be the beginning of a form
 * (what a streamed delta must hold back until the next one shows). Pure: no state per run.
 */
import { REDACTED, secretForms } from '@parlance/engine';

/**
 * The compiled forms of a list of secrets (see `secretForms` in @parlance/engine: raw, URL-encoded,
 * hex, base64 at every alignment, JSON-escaped).
 *
 * @example
 * const matcher = createFormMatcher([process.env.OPENAI_API_KEY]);
 * matcher?.scrub(`echo ${btoa(`Bearer ${key}`)}`); // 'echo QmVh[redacted]…'
 */
export interface FormMatcher {
  /** Every form, longest first. */
  readonly forms: readonly string[];
  /** The longest form's length: a held tail is at most this less one character. */
  readonly longest: number;
  /** Forms made of digits only (a secret of digits is caught in numbers too). */
  readonly numeric: readonly string[];
  /**
   * Texts from a form up to a longer form it begins (base64 without its padding) less a character, longest
   * first: a delta ending in one may still grow into the longer form.
   */
  readonly extendable: readonly string[];
  /** `text` with every form replaced by `[redacted]` (the same string when it holds none). */
  scrub(text: string): string;
  /** Where the held tail of `text` starts: the earliest position from which the rest is a proper prefix of some form (`text.length` if none). */
  holdFrom(text: string): number;
}

/**
 * The matcher for `secrets` (values under 8 characters are ignored: they would redact ordinary
 * words), or undefined when there is nothing to scrub.
 *
 * @example
 * const matcher = createFormMatcher(['sk-test-0123456789']);
 * matcher!.holdFrom('the key is sk-te'); // 11: 'sk-te' may begin the key
 */
export function createFormMatcher(secrets: readonly (string | undefined)[]): FormMatcher | undefined {
  const list = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8);
  if (list.length === 0) return undefined;
  // One matcher per secret list, built once: every run of a server has the same list. At most
  // MATCHERS_KEPT lists are kept (a server whose secrets change per request only rebuilds).
  const key = JSON.stringify(list);
  const kept = matchers.get(key);
  if (kept) return kept;
  const built = buildMatcher(list);
  if (matchers.size >= MATCHERS_KEPT) matchers.delete(matchers.keys().next().value!);
  matchers.set(key, built);
  return built;
}

const MATCHERS_KEPT = 16;
const matchers = new Map<string, FormMatcher>();

function buildMatcher(list: readonly string[]): FormMatcher {
  const forms = secretForms(list);
  const shortest = forms[forms.length - 1]!.length;
  const longest = forms[0]!.length;
  const numeric = forms.filter((f) => /^[0-9]+$/.test(f));
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

  function scrub(text: string): string {
    if (text.length < shortest) return text;
    let out = text;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  }

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

  return { forms, longest, numeric, extendable, scrub, holdFrom };
}
