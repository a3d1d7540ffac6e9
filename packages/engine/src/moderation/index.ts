export {
  MODERATION_CATEGORIES,
  moderate,
  type ModerationCallOptions,
  type ModerationCategory,
  type ModerationInput,
  type ModerationModel,
  type ModerationResponse,
  type ModerationResult,
} from './moderation-model.ts';
export { openaiModerationModel, resolveModerationModel } from './openai-moderation.ts';
