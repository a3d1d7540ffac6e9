import { describe, expect, test } from 'vitest';
import { completePartialMarkdown } from './partial-markdown.ts';

describe('completePartialMarkdown', () => {
  test.each([
    ['You said: **bo', 'You said: **bo**'],
    ['You said: **bold**', 'You said: **bold**'],
    ['You said: **', 'You said: '],
    ['You said: *', 'You said: '],
    ['Try `weat', 'Try `weat`'],
    ['Try `weather` and **st', 'Try `weather` and **st**'],
    ['`a ** b` and more', '`a ** b` and more'],
    ['```js\nconst a = 1;', '```js\nconst a = 1;\n```'],
    ['```js\nconst a = 1;\n```\nthen **x', '```js\nconst a = 1;\n```\nthen **x**'],
    ['~~gone', '~~gone~~'],
    ['plain text', 'plain text'],
    ['You said: **bold ', 'You said: **bold**'],
    ['**a `b', '**a `b`**'],
  ])('%j renders as %j', (input, expected) => {
    expect(completePartialMarkdown(input)).toBe(expected);
  });

  test('every prefix of a finished answer balances its strong markers', () => {
    const answer = 'You said: **bold moves only**.\n\n- `weather in Paris`: a tool call\n- `long`: **slow**';
    for (let i = 0; i <= answer.length; i++) {
      const out = completePartialMarkdown(answer.slice(0, i));
      const outside = out.replace(/`[^`]*`/g, '');
      expect((outside.split('**').length - 1) % 2, out).toBe(0);
    }
  });
});

describe('completePartialMarkdown: a streaming table', () => {
  const table = ['Before:', '', '| Dialect | Provider |', '| --- | --- |', '| `openai` | **OpenAI** |', '| `google` | Gemini |', ''].join('\n');

  test.each([
    ['Before:\n\n| Dia', 'Before:\n'],
    ['Before:\n\n| Dialect | Provider |', 'Before:\n'],
    ['Before:\n\n| Dialect | Provider |\n', 'Before:\n'],
    ['Before:\n\n| Dialect | Provider |\n| --- | -', 'Before:\n'],
    ['Before:\n\n| Dialect | Provider |\n| --- |', 'Before:\n'],
    ['Before:\n\n| Dialect | Provider |\n| --- | --- |', 'Before:\n'],
    ['Before:\n\n| Dialect | Provider |\n| --- | --- |\n', 'Before:\n\n| Dialect | Provider |\n| --- | --- |\n'],
    ['Before:\n\n| A | B |\n| --- | --- |\n| x | **y', 'Before:\n\n| A | B |\n| --- | --- |\n| x | **y**'],
    ['a | b', 'a | b'],
  ])('%j renders as %j', (input, expected) => {
    expect(completePartialMarkdown(input)).toBe(expected);
  });

  test('no prefix of a table answer shows a table line unless the table is recognisable', () => {
    const delimiterWhole = table.indexOf('| --- | --- |\n') + '| --- | --- |\n'.length;
    for (let i = 0; i <= table.length; i++) {
      const out = completePartialMarkdown(table.slice(0, i));
      if (i < delimiterWhole) expect(out, JSON.stringify(table.slice(0, i))).not.toContain('|');
      else expect(out).toContain('| --- | --- |\n');
    }
  });
});
