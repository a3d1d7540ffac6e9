/**
 * Sampling settings a model rejects, by model family, from the providers' documentation: the
 * engine's catalog and the dialect encoders (used alone) apply the same rules.
 */
/**
 * Request settings a model rejects, by model family, from the providers' documentation.
 * The engine and the dialect encoders leave such a setting out and report a warning for it.
 *
 * @example
 * ```ts
 * const rules: SamplingRules = { temperatureOrTopP: true };
 * ```
 */
export interface SamplingRules {
  /** `temperature` and `top_p` together: only one may be sent (Claude Opus 4.1 and the 4.5+ models). */
  temperatureOrTopP?: boolean;
  /** `temperature` / `top_p` while the model reasons (OpenAI reasoning models: o-series, gpt-5 family). */
  noSamplingWhileReasoning?: boolean;
  /** The model reasons when no thinking setting is sent (false: its default effort is 'none', gpt-5.1 and later). */
  reasonsByDefault?: boolean;
}

/**
 * - Claude: "use only temperature OR top_p, not both" for Claude Sonnet 4.5 and the models after
 *   it (Opus 4.1 too), https://platform.claude.com/docs/en/about-claude/models/migration-guide
 *   (the API answers "`temperature` and `top_p` cannot both be specified for this model").
 * - OpenAI reasoning models reject `temperature` and `top_p` ("Unsupported parameter: 'temperature'
 *   is not supported with this model"); gpt-5.1 and later take them only with reasoning effort
 *   'none', their default: https://platform.openai.com/docs/guides/latest-model#gpt-5-parameter-compatibility
 * Ids are matched with '-' or '.' between version numbers (OpenRouter writes `claude-sonnet-4.5`).
 *
 * @example
 * ```ts
 * samplingRules('anthropic', 'claude-sonnet-4-5', true); // { temperatureOrTopP: true }
 * ```
 */
export function samplingRules(provider: string, id: string, reasoning: boolean): SamplingRules | undefined {
  const name = id.toLowerCase();
  if (/claude-(?:opus-4[-.]1|(?:opus|sonnet|haiku)-4[-.][5-9]|(?:opus|sonnet|haiku)-[5-9])(?![0-9])/.test(name)) return { temperatureOrTopP: true };
  const openai = provider === 'openai' || provider === 'azure' || name.startsWith('openai/');
  if (openai && reasoning && /(?:^|\/)(?:o\d|gpt-5)/.test(name)) {
    return { noSamplingWhileReasoning: true, reasonsByDefault: !/gpt-5\.[1-9]/.test(name) };
  }
  return undefined;
}

