/**
 * The last line of defence for secrets: every event a run sends is checked for every
 * configured secret value (environment variables named like keys, the server's own
 * `secrets`, credential headers the runner was configured with, the signing secret),
 * in every form an echo may take (raw, base64, URL-encoded: `secretForms`).
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

/** Values of secret-looking environment variables. */
export function envSecrets(env: Env): string[] {
  const out: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= 8 && /KEY|TOKEN|SECRET|PASSWORD|CREDENTIAL|AUTH/i.test(name)) out.push(value);
  }
  return out;
}

/** A scrubber for a list of secret values: returns the event itself when it holds none of them. */
export function createScrubber(secrets: readonly (string | undefined)[]): (event: Event) => Event {
  const forms = secretForms(secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8));
  if (forms.length === 0) return (event) => event;
  // JSON-escaped forms: what a secret looks like inside the serialized event.
  const escaped = forms.map((f) => JSON.stringify(f).slice(1, -1));
  return (event) => {
    const text = JSON.stringify(event);
    if (!escaped.some((s) => text.includes(s))) return event;
    let clean = text;
    for (const secret of escaped) clean = clean.split(secret).join(REDACTED);
    return JSON.parse(clean) as Event;
  };
}
