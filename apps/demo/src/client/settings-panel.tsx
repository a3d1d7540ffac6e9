/**
 * "Settings" in the header: the model options a browser may set (model-settings.ts), applied to
 * every message sent after a change and kept for the next visit. Thinking shows for models that reason.
 */
import { LIMITS, type ModelSettings, toClientOptions } from './model-settings.ts';

const EFFORTS: { value: ModelSettings['thinking']; label: string }[] = [
  { value: '', label: "Model's default" },
  { value: 'off', label: 'Off' },
  { value: 'minimal', label: 'Minimal' },
  { value: 'low', label: 'Low' },
  { value: 'medium', label: 'Medium' },
  { value: 'high', label: 'High' },
  { value: 'xhigh', label: 'Extra high' },
];

const FIELDS: { field: keyof typeof LIMITS; label: string }[] = [
  { field: 'temperature', label: 'Temperature' },
  { field: 'topP', label: 'Top P' },
  { field: 'maxOutputTokens', label: 'Max output tokens' },
];

export function SettingsPanel({ settings, onChange, reasoning }: { settings: ModelSettings; onChange: (next: ModelSettings) => void; reasoning: boolean }) {
  const { errors } = toClientOptions(settings);
  const changed = Object.values(toClientOptions(settings).options).length;
  return (
    <details className="header-menu settings-menu">
      <summary>Settings{changed ? ` (${changed})` : ''}</summary>
      <form className="menu settings-form" aria-label="Model settings" onSubmit={(e) => e.preventDefault()}>
        {FIELDS.map(({ field, label }) => {
          const { min, max, step } = LIMITS[field];
          const error = errors[field];
          return (
            <label key={field}>
              <span>{label}</span>
              <input
                type="number"
                inputMode="decimal"
                min={min}
                max={max}
                step={step}
                placeholder="default"
                value={settings[field]}
                aria-invalid={error ? true : undefined}
                aria-describedby={error ? `${field}-error` : undefined}
                onChange={(e) => onChange({ ...settings, [field]: e.currentTarget.value })}
              />
              {error && (
                <span className="field-error" id={`${field}-error`}>
                  {error}; not sent.
                </span>
              )}
            </label>
          );
        })}
        {reasoning && (
          <label>
            <span>Thinking</span>
            <select value={settings.thinking} onChange={(e) => onChange({ ...settings, thinking: e.currentTarget.value as ModelSettings['thinking'] })}>
              {EFFORTS.map((effort) => (
                <option key={effort.value} value={effort.value}>
                  {effort.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <p className="settings-note">Empty: the provider's default. Applies to the next message.</p>
      </form>
    </details>
  );
}
