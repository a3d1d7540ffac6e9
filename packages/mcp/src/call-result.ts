/**
 * An MCP `tools/call` result as an engine tool result
 * (https://modelcontextprotocol.io/specification/2025-06-18/server/tools#tool-result):
 *
 * - `isError: true` is a failure the model should see and may correct: the handler
 *   throws a `tool_error`, so the loop records an error result (and `onToolError` applies);
 * - text-only content is its text, blocks joined by a blank line; with `structuredContent`
 *   the structured value (the spec asks servers to repeat it as text, so nothing is lost);
 * - content with images, audio or embedded binary resources is a `ToolContentOutput`
 *   (`@parlance/protocol`): text and files, which the dialects send as the provider's own
 *   media content in the tool result (or next to it), never as base64 inside text. It wins
 *   over `structuredContent`, which cannot hold the files. Embedded text resources and
 *   resource links are text naming their URI.
 */
import { ParlanceError, type ToolContentOutput, type ToolContentPart } from '@parlance/protocol';

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

/** The last segment of a URI's path, as a file name (`file:///tmp/chart.png` -> `chart.png`). */
function fileName(uri: string): string | undefined {
  const segment = uri.split(/[?#]/)[0]!.split('/').filter(Boolean).pop();
  return segment && !segment.endsWith(':') ? segment : undefined;
}

function part(block: RawBlock): ToolContentPart | undefined {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: str(block.text) ?? '' };
    case 'image':
    case 'audio':
      return { type: 'file', mediaType: str(block.mimeType) ?? 'application/octet-stream', data: str(block.data) ?? '' };
    case 'resource': {
      const resource = block.resource ?? {};
      const uri = str(resource.uri) ?? '';
      const blob = str(resource.blob);
      if (blob !== undefined) {
        const out: ToolContentPart = { type: 'file', mediaType: str(resource.mimeType) ?? 'application/octet-stream', data: blob };
        const name = fileName(uri);
        if (name) out.filename = name;
        return out;
      }
      return { type: 'text', text: `[resource ${uri}]\n${str(resource.text) ?? ''}` };
    }
    case 'resource_link': {
      const mediaType = str(block.mimeType);
      const description = str(block.description);
      return {
        type: 'text',
        text: `[resource link ${str(block.name) ?? ''}: ${str(block.uri) ?? ''}${mediaType ? ` (${mediaType})` : ''}]${description ? ` ${description}` : ''}`,
      };
    }
    default:
      // A block type from a later spec version: skipped rather than failing the call.
      return undefined;
  }
}

function textOf(parts: ToolContentPart[]): string {
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
 * toToolOutput({ content: [{ type: 'image', data: 'iVBO…', mimeType: 'image/png' }] }, 'screenshot');
 * // { type: 'content', content: [{ type: 'file', mediaType: 'image/png', data: 'iVBO…' }] }
 * ```
 */
export function toToolOutput(result: { content?: unknown; structuredContent?: unknown; isError?: unknown; toolResult?: unknown }, toolName: string): unknown {
  // Servers on protocol 2024-10-07 answer with `toolResult` (the SDK's compatibility schema).
  if (result.content === undefined && 'toolResult' in result) return result.toolResult;
  const blocks = Array.isArray(result.content) ? (result.content as RawBlock[]) : [];
  const parts = blocks.map(part).filter((p): p is ToolContentPart => p !== undefined);
  if (result.isError === true) {
    throw new ParlanceError('tool_error', textOf(parts) || `The MCP tool "${toolName}" reported an error`);
  }
  if (parts.some((p) => p.type === 'file')) return { type: 'content', content: parts } satisfies ToolContentOutput;
  if (result.structuredContent !== undefined && result.structuredContent !== null) return result.structuredContent;
  return textOf(parts);
}
