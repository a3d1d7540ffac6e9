import type { ErrorPayload } from './error.ts';
import type { FinishReason } from './finish.ts';
import type { Message } from './message.ts';
import type { Usage } from './usage.ts';

/**
 * One model response, collected.
 *
 * @example
 * const response: Response = await collectResponse(events);
 * console.log(response.finishReason, response.usage.outputTokens);
 */
export interface Response {
  id?: string;
  model?: string;
  message: Message;
  finishReason: FinishReason;
  rawFinishReason?: string;
  usage: Usage;
  warnings?: string[];
  error?: ErrorPayload;
}
