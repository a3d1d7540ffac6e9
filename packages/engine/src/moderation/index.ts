export {
  MODERATION_CATEGORIES,
  type ModerationCallOptions,
  type ModerationCategory,
  type ModerationInput,
  type ModerationModel,
  type ModerationResponse,
  type ModerationResult,
  moderate,
} from './moderation-model.ts';
export { openaiModerationModel, resolveModerationModel } from './openai-moderation.ts';
