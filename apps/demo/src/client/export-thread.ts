/**
 * A thread as a file to keep: Markdown to read (who said what, tool calls and their results, the
 * cost of each answer) and JSON to load again (the whole `Thread`, versions included, as saved).
 */
import type { Message, Part, Thread, Usage } from '@parlance/protocol';
import { formatJson, formatUsage } from './format.ts';

/** A fence longer than any backtick run in `text`, so code that holds ``` stays one block. */
function fence(text: string, info = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${info}\n${text}\n${ticks}`;
}

function partMarkdown(part: Part): string | undefined {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'tool-call':
      return `Tool call \`${part.name}\`:\n\n${fence(formatJson(part.input), 'json')}`;
    case 'tool-result':
      return `Result of \`${part.name}\`${part.isError ? ' (error)' : ''}:\n\n${fence(formatJson(part.output), 'json')}`;
    case 'source':
      return `Source: [${part.title ?? part.url}](${part.url})`;
    case 'summary':
      return `> Earlier messages were summarized to fit the model's context window:\n>\n${part.text
        .split('\n')
        .map((line) => `> ${line}`)
        .join('\n')}`;
    // Reasoning is the model's scratch work and files are kept in the JSON export; neither is prose to read.
    default:
      return undefined;
  }
}

function speaker(message: Message): string {
  if (message.role === 'user') return 'You';
  if (message.role === 'tool') return 'Tool';
  if (message.role === 'system') return 'System';
  const model = message.provenance ? ` (${message.provenance.provider}:${message.provenance.model})` : '';
  return `Assistant${model}`;
}

/**
 * The shown conversation as Markdown: a heading, then each message under who said it.
 *
 * @example
 * threadToMarkdown(thread, 'Weather in Paris'); // "# Weather in Paris\n\n## You\n\nweather in Paris\n\n## Assistant (demo:mock) ..."
 */
export function threadToMarkdown(thread: Thread, title: string): string {
  const out = [`# ${title}`];
  for (const message of thread.messages) {
    const body = message.parts.map(partMarkdown).filter((text): text is string => Boolean(text?.trim()));
    const usage = formatUsage(message.metadata?.usage as Usage | undefined);
    if (message.error) body.push(`*No answer: ${message.error.message}*`);
    if (body.length === 0) continue;
    if (usage) body.push(`*${usage}*`);
    out.push(`## ${speaker(message)}`, ...body);
  }
  return `${out.join('\n\n')}\n`;
}

/**
 * The whole thread as JSON (every version, metadata and usage), with its title.
 *
 * @example
 * JSON.parse(threadToJson(thread, 'Weather')).thread.messages.length;
 */
export function threadToJson(thread: Thread, title: string): string {
  return `${JSON.stringify({ title, thread }, null, 2)}\n`;
}

/**
 * A file name from a title: lower case words joined by dashes, at most 60 characters.
 *
 * @example
 * exportFileName('Weather in Paris?', 'md'); // "weather-in-paris.md"
 */
export function exportFileName(title: string, extension: string): string {
  const stem = title
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${stem || 'chat'}.${extension}`;
}

/** Hands `text` to the browser as a download named `name`. */
export function downloadText(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.click();
  // After the click has started the download; the URL is not needed again.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
