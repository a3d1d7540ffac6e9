export const FINISH_REASONS = [
  'stop',
  'length',
  'tool-calls',
  'content-filter',
  'refusal',
  'pause',
  'error',
  'cancelled',
  'other',
] as const;

/** Why one model response ended. The provider's own words travel beside it as `rawFinishReason`. */
export type FinishReason = (typeof FINISH_REASONS)[number];

export const HALT_REASONS = [
  'completed',
  'max-steps',
  'halt-when',
  'client-tool-calls',
  'approval',
  'ask-user',
  'tool-error',
  'length',
  'content-filter',
  'cancelled',
  'error',
] as const;

/** Why a multi-step chat run stopped. Exactly one per run. */
export type HaltReason = (typeof HALT_REASONS)[number];
