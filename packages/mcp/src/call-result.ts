/**
 * An MCP `tools/call` result as an engine tool result
 * (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-result):
 *
 * - `isError: true` is a failure the model should see and may correct: the handler
 *   throws a `tool_error`, so the loop records an error result (and `onToolError` applies);
 * - `structuredContent` is the output (the spec asks servers to repeat it as text, so
 *   nothing is lost by preferring it);
 * - text-only content is its text, blocks joined by a blank line;
 * - anything else (images, audio, resources) is `{ content: [...] }`, each block in a
 *   plain shape (`{ type: 'image', mediaType, data }`), so an app can render it.
 */
import { ParlanceError } from '@parlance/protocol';

/**
 * One content block of an MCP tool result, as the engine's tool output carries it.
 *
 * @example
 * ```ts
 * const part: McpContentPart = { type: 'image', mediaType: 'image/png', data: 'iVBORw0…' };
 * ```
 */
export type McpContentPart =
  | { type: 'text'; text: string }
  | { type: 'image'; mediaType: string; data: string }
  | { type: 'audio'; mediaType: string; data: string }
  | { type: 'resource'; uri: string; mediaType?: string; text?: string; data?: string }
  | { type: 'resource_link'; uri: string; name: string; mediaType?: string; description?: string };

/**
 * The output of an MCP tool whose result is more than text.
 *
 * @example
 * ```ts
 * const output: McpContentOutput = { content: [{ type: 'text', text: 'A chart' }, { type: 'image', mediaType: 'image/png', data: '…' }] };
 * ```
 */
export interface McpContentOutput {
  content: McpContentPart[];
}

interface RawBlock {
  type?: unknown;
  text?: unknown;
  data?: unknown;
  mimeType?: unknown;
  uri?: unknown;
  name?: unknown;
  description?: unknown;
  resource?: { uri?: unknown; mimeType?: unknown; text?: unknown; blob?: unknown };
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function part(block: RawBlock): McpContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' };
    case 'image':
    case 'audio':
      return { type: block.type, mediaType: str(block.mimeType) ?? 'application/octet-stream', data: str(block.data) ?? '' };
    case 'resource': {
      const resource = block.resource ?? {};
      const out: McpContentPart = { type: 'resource', uri: str(resource.uri) ?? '' };
      if (str(resource.mimeType)) out.mediaType = str(resource.mimeType)!;
      if (str(resource.text) !== undefined) out.text = str(resource.text)!;
      if (str(resource.blob) !== undefined) out.data = str(resource.blob)!;
      return out;
    }
    case 'resource_link': {
      const out: McpContentPart = { type: 'resource_link', uri: str(block.uri) ?? '', name: str(block.name) ?? '' };
      if (str(block.mimeType)) out.mediaType = str(block.mimeType)!;
      if (str(block.description)) out.description = str(block.description)!;
      return out;
    }
    default:
      // A block type from a later spec version: skipped rather than failing the call.
      return undefined;
  }
}

function textOf(parts: McpContentPart[]): string {
  return parts.map((p) => (p.type === 'text' ? p.text : '')).filter((t) => t !== '').join('\n\n');
}

/**
 * The engine tool output of an MCP `tools/call` result; throws a `tool_error`
 * ParlanceError for a result with `isError: true`. `mcpTools` applies it to every call.
 *
 * @example
 * ```ts
 * toToolOutput({ content: [{ type: 'text', text: '21 °C' }] }, 'weather'); // '21 °C'
 * toToolOutput({ content: [], structuredContent: { tempC: 21 } }, 'weather'); // { tempC: 21 }
 * ```
 */
export function toToolOutput(result: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown }, toolName: string): unknown {
  // Servers on protocol 2024-10-07 answer with `toolResult` (the SDK's compatibility schema).
  if (result.content === undefined && 'toolResult' in result) return result.toolResult;
  const blocks = Array.isArray(result.content) ? (result.content as RawBlock[]) : [];
  const parts = blocks.map(part).filter((p): p is McpContentPart => p !== undefined);
  if (result.isError === true) {
    throw new ParlanceError('tool_error', textOf(parts) || `The MCP tool "${toolName}" reported an error`);
  }
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  if (parts.every((p) => p.type === 'text')) return textOf(parts);
  return { content: parts } satisfies McpContentOutput;
}
