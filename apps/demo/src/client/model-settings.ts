/**
 * The model settings a reader may change: the call options the demo's server accepts from a
 * browser (`clientOptions`, by default @parlance/server's `clientOptionsSchema`: temperature, topP,
 * maxOutputTokens, thinking). The limits below are that schema's; the client cannot import the
 * server package, so they are written again here. Kept in localStorage; an empty field is the
 * provider's default, a value out of range is not sent (the server would refuse the request).
 */

/** The settings as the form holds them: text from the inputs, `''` for the provider's default. */
export interface ModelSettings {
  temperature: string;
  topP: string;
  maxOutputTokens: string;
  /** `''` (the model's default), `'off'`, or an effort. */
  thinking: '' | 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
}

export const DEFAULT_SETTINGS: ModelSettings = { temperature: '', topP: '', maxOutputTokens: '', thinking: '' };

/** Each number field's limits, as clientOptionsSchema has them. */
export const LIMITS = {
  temperature: { min: 0, max: 2, step: 0.1, integer: false },
  topP: { min: 0, max: 1, step: 0.05, integer: false },
  maxOutputTokens: { min: 1, max: 1_000_000, step: 1, integer: true },
} as const;

type NumberField = keyof typeof LIMITS;

/**
 * What the settings send (`options` of the chat request) and why a field is left out.
 *
 * @example
 * toClientOptions({ ...DEFAULT_SETTINGS, temperature: '0.3' }); // { options: { temperature: 0.3 }, errors: {} }
 */
export function toClientOptions(settings: ModelSettings): { options: Record<string, unknown>; errors: Partial<Record<NumberField, string>> } {
  const options: Record<string, unknown> = {};
  const errors: Partial<Record<NumberField, string>> = {};
  for (const field of Object.keys(LIMITS) as NumberField[]) {
    const text = settings[field].trim();
    if (text === '') continue;
    const { min, max, integer } = LIMITS[field];
    const value = Number(text);
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      errors[field] = `${integer ? 'A whole number' : 'A number'} from ${min.toLocaleString('en')} to ${max.toLocaleString('en')}`;
      continue;
    }
    options[field] = value;
  }
  if (settings.thinking === 'off') options.thinking = false;
  else if (settings.thinking) options.thinking = { effort: settings.thinking };
  return { options, errors };
}

const KEY = 'parlance-demo:settings';

/** The saved settings, or the defaults (a missing or unreadable record). */
export function loadSettings(): ModelSettings {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? '{}') as Partial<ModelSettings>;
    const out = { ...DEFAULT_SETTINGS };
    for (const field of Object.keys(DEFAULT_SETTINGS) as (keyof ModelSettings)[]) {
      if (typeof saved[field] === 'string') (out as Record<string, string>)[field] = saved[field];
    }
    return out;
  } catch {
    return { ...DEFAULT_SETTINGS };
  }
}

export function saveSettings(settings: ModelSettings): void {
  try {
    localStorage.setItem(KEY, JSON.stringify(settings));
  } catch {
    // A full storage keeps the settings for this page only; the chat shows the storage problem itself.
  }
}
