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
