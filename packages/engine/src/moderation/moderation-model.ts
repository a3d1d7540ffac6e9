/**
 * Moderation: is this text (or image) harmful, by category, with a score per category.
 * One contract (`ModerationModel`), OpenAI's endpoint behind it.
 */
import type { Usage } from '@parlance/protocol';
import type { MediaModelInfo } from '../catalog/media-models.ts';

/**
 * OpenAI's categories (https://platform.openai.com/docs/guides/moderation#content-classifications).
 *
 * @example
 * ```ts
 * for (const category of MODERATION_CATEGORIES) if (result.scores[category] > 0.5) console.log(category);
 * ```
 */
export const MODERATION_CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/intent',
  'self-harm/instructions',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

/**
 * 
 *
 * @example
 * const violent = result.categories['violence' satisfies ModerationCategory];
 */
export type ModerationCategory = (typeof MODERATION_CATEGORIES)[number];

/**
 * Text, or an image by URL (an https URL or a `data:` URL).
 *
 * @example
 * await moderate(model, { input: [{ type: 'text', text: caption }, { type: 'image', url: imageUrl }] });
 */
export type ModerationInput = string | { type: 'text'; text: string } | { type: 'image'; url: string };

/**
 * The verdict on one input: flagged, and per category.
 *
 * @example
 * if (results[0]?.categories.violence) reject();
 */
export interface ModerationResult {
  flagged: boolean;
  /** Whether each category is flagged (a category the model does not judge is false). */
  categories: Record<ModerationCategory, boolean>;
  /** The model's confidence per category, 0 to 1 (0 for a category the model does not score). */
  scores: Record<ModerationCategory, number>;
  /** Which inputs each score applies to (omni models): 'text', 'image'. */
  appliedInputTypes?: Partial<Record<ModerationCategory, ('text' | 'image')[]>>;
}

/**
 * 
 *
 * @example
 * const { flagged, results } = await moderate(resolveModerationModel('openai:omni-moderation-latest'), { input: userText });
 */
export interface ModerationResponse {
  /** True when any result is flagged. */
  flagged: boolean;
  /**
   * One result per input when every input is a string; one result for the whole list
   * when it mixes text and images (they are judged together).
   */
  results: ModerationResult[];
  id?: string;
  model?: string;
  usage: Usage;
}

/**
 * 
 *
 * @example
 * await moderate(model, { input: text, signal: controller.signal });
 */
export interface ModerationCallOptions {
  signal?: AbortSignal | undefined;
  headers?: Record<string, string> | undefined;
}

/**
 * A moderation model (what `moderate` calls).
 *
 * @example
 * const model: ModerationModel = resolveModerationModel('openai:omni-moderation-latest');
 */
export interface ModerationModel {
  readonly provider: string;
  readonly modelId: string;
  readonly info: MediaModelInfo;
  classify(input: ModerationInput[], options?: ModerationCallOptions): Promise<ModerationResponse>;
}

/**
 * Classifies text or images.
 *
 * @example
 * ```ts
 * const { flagged, results } = await moderate(resolveModerationModel('openai:omni-moderation-latest'), { input: userText });
 * if (results[0]!.scores.violence > 0.8) reject();
 * ```
 */
export function moderate(model: ModerationModel, options: { input: ModerationInput | ModerationInput[] } & ModerationCallOptions): Promise<ModerationResponse> {
  const input = Array.isArray(options.input) ? options.input : [options.input];
  const call: ModerationCallOptions = {};
  if (options.signal) call.signal = options.signal;
  if (options.headers) call.headers = options.headers;
  return model.classify(input, call);
}
