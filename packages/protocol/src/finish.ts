/**
 * Why one model call ended: `stop`, `length`, `tool-calls`, `content-filter`, `refusal`, `pause`, `error`, `cancelled`, `other`.
 *
 * @example
 * if (response.finishReason === 'length') console.warn('cut at maxOutputTokens');
 */
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

/**
 * Why one model response ended. The provider's own words travel beside it as `rawFinishReason`.
 *
 * @example
 * const reason: FinishReason = response.finishReason;
 */
export type FinishReason = (typeof FINISH_REASONS)[number];

/**
 * Why a run stopped: `completed`; paused for `approval`, `client-tool-calls` or `ask-user`; or ended by `max-steps`, `halt-when`, `tool-error`, `length`, `content-filter`, `cancelled`, `error`.
 *
 * @example
 * if (result.haltReason === 'approval') showApprovals(result.pending);
 */
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

/**
 * Why a multi-step chat run stopped. Exactly one per run.
 *
 * @example
 * const paused = (r: HaltReason) => r === 'approval' || r === 'client-tool-calls' || r === 'ask-user';
 */
export type HaltReason = (typeof HALT_REASONS)[number];
