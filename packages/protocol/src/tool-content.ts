/**
 * A tool output that is model content (text and files), not a JSON value: an MCP tool
 * that answers with a screenshot, a chart, a recording or a document. A tool result's
 * `output` is any JSON; this one shape tells the dialects to send the files as the
 * provider's own media content (an Anthropic `tool_result` image block, a Gemini
 * `functionResponse` part, an OpenAI Responses `input_image`) instead of base64 inside
 * JSON text, which the model cannot see as an image. Plain data, so it is signed,
 * stored and sent back like any other output; an app renders it with `toolContentOf`.
 */

/**
 * One piece of a content output: text, or a file as base64 `data` with its media type.
 *
 * @example
 * ```ts
 * const parts: ToolContentPart[] = [{ type: 'text', text: 'The chart' }, { type: 'file', mediaType: 'image/png', data: pngBase64 }];
 * ```
 */
export type ToolContentPart = { type: 'text'; text: string } | { type: 'file'; mediaType: string; data: string; filename?: string };

/**
 * A tool output made of model content (text and files) rather than a JSON value.
 *
 * @example
 * ```ts
 * const screenshot = tool({
 *   name: 'screenshot',
 *   execute: async (): Promise<ToolContentOutput> => ({ type: 'content', content: [{ type: 'file', mediaType: 'image/png', data: await capture() }] }),
 * });
 * ```
 */
export interface ToolContentOutput {
  type: 'content';
  content: ToolContentPart[];
}

const isString = (value: unknown): value is string => typeof value === 'string';

function isPart(value: unknown): value is ToolContentPart {
  if (typeof value !== 'object' || value === null) return false;
  const part = value as Record<string, unknown>;
  if (part.type === 'text') return isString(part.text);
  if (part.type === 'file') return isString(part.mediaType) && isString(part.data) && (part.filename === undefined || isString(part.filename));
  return false;
}

/**
 * The output as a content output, or undefined when it is any other value (then it is
 * sent as JSON text). Every part is checked: one malformed part makes the whole output
 * plain JSON, so a tool that happens to return `{ type: 'content' }` loses nothing.
 *
 * @example
 * ```ts
 * const content = toolContentOf(part.output);
 * if (content) for (const piece of content.content) if (piece.type === 'file') show(piece.mediaType, piece.data);
 * ```
 */
export function toolContentOf(output: unknown): ToolContentOutput | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const candidate = output as Record<string, unknown>;
  if (candidate.type !== 'content' || !Array.isArray(candidate.content) || !candidate.content.every(isPart)) return undefined;
  return candidate as unknown as ToolContentOutput;
}
