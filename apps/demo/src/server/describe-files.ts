/**
 * What the demo model says about the files in the user's last message. The engine resolves each
 * stored file's reference into the request it sends (inline base64 in the Anthropic Messages wire
 * format: `image` and `document` blocks, https://docs.anthropic.com/en/docs/build-with-claude/vision
 * and .../pdf-support), so the mock can only describe what it received: each file's type, size
 * and SHA-256, which a test compares with the bytes it dropped.
 */
import { createHash } from 'node:crypto';

interface FileBlock {
  type: string;
  source?: { type?: string; media_type?: string; data?: string; url?: string };
}

/** One line per image or document block in `blocks` (empty when there are none). */
export function describeFiles(blocks: readonly FileBlock[]): string[] {
  const lines: string[] = [];
  for (const block of blocks) {
    if (block.type !== 'image' && block.type !== 'document') continue;
    const source = block.source ?? {};
    const kind = block.type === 'image' ? 'an image' : 'a document';
    if (source.type === 'base64' && typeof source.data === 'string') {
      const bytes = Buffer.from(source.data, 'base64');
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      lines.push(`${kind} (${source.media_type ?? 'unknown type'}, ${bytes.length} bytes, sha256 \`${sha256}\`)`);
    } else if (source.type === 'text') lines.push(`${kind} (plain text, ${String(source.data ?? '').length} characters)`);
    else lines.push(`${kind} at ${source.url ?? 'an unknown place'}`);
  }
  return lines;
}
