/**
 * A GFM table is a table only once its header row and its delimiter row (`|---|---|`) are both
 * whole; until then its lines render as text full of `|`. So a table at the end of the text is
 * held back until its delimiter row has ended; after that each row renders as it arrives (a row
 * cut short is a row with fewer cells). Only tables whose rows start with `|` are recognised:
 * those are what models write, and a line with a bare `a | b` is too often plain prose.
 */
function holdBackTableStart(text: string): string {
  const ended = text.endsWith('\n');
  const lines = (ended ? text.slice(0, -1) : text).split('\n');
  let start = lines.length;
  while (start > 0 && lines[start - 1]!.trimStart().startsWith('|')) start--;
  const rows = lines.length - start;
  if (rows === 0) return text;
  const [header = '', delimiter = ''] = lines.slice(start, start + 2);
  const pipes = (line: string) => line.trim().split('|').length;
  // Whole: the delimiter row has as many cells as the header and a line after it has begun (maybe empty).
  const whole = /^\s*\|(\s*:?-+:?\s*\|)+\s*$/.test(delimiter) && pipes(delimiter) === pipes(header) && (rows >= 3 || ended);
  return whole ? text : lines.slice(0, start).join('\n');
}

/**
 * Markdown that is still arriving: `**bold` with its closing marker not streamed yet
 * would show raw asterisks until the marker comes. While a message streams, markers
 * still open are closed (and a marker run at the very end, which opens nothing yet,
 * is held back), so the reader sees formatting, never syntax. The finished text is
 * rendered as is.
 */
export function completePartialMarkdown(text: string): string {
  // Inside an open code fence everything is code: close the fence and stop.
  const fences = text.match(/^\s*```/gm)?.length ?? 0;
  if (fences % 2 === 1) return `${text}\n\`\`\``;
  text = holdBackTableStart(text);
  // A marker run at the end opens nothing yet (or closes something we close below anyway).
  let out = text.replace(/(?:\*+|_{2,}|~+|`)$/, '');
  // Balance what is open outside fenced code: inline code first, then strong / strike.
  if ((out.replace(/```[\s\S]*?```/g, '').match(/`/g)?.length ?? 0) % 2 === 1) out += '`';
  const outsideCode = out.replace(/```[\s\S]*?```/g, '').replace(/`[^`]*`/g, '');
  // A closing marker after a space closes nothing (CommonMark's flanking rule), and trailing space shows nothing.
  const strong = (outsideCode.split('**').length - 1) % 2 === 1;
  const strike = (outsideCode.split('~~').length - 1) % 2 === 1;
  if (strong || strike) out = out.trimEnd();
  if (strong) out += '**';
  if (strike) out += '~~';
  return out;
}
