// Images a tool returned, for a model the catalog knows takes no images: named in a note, with a
// warning, instead of a provider error on every later step of the run.
import type { Message, ToolContentOutput } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { getModelInfo } from '../catalog/catalog.ts';
import { adjustRequest } from './prepare-request.ts';

const screenshot: ToolContentOutput = {
  type: 'content',
  content: [
    { type: 'text', text: 'The page' },
    { type: 'file', mediaType: 'image/png', data: 'iVBO', filename: 'shot.png' },
    { type: 'file', mediaType: 'application/pdf', data: 'JVBE' },
  ],
};
const messages: Message[] = [
  { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Look' }] },
  { id: 'a', role: 'assistant', parts: [{ type: 'tool-call', id: 'c', name: 'screenshot', input: {} }] },
  { id: 't', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c', name: 'screenshot', output: screenshot }] },
];

describe('tool images and the model catalog', () => {
  it('a text-only model gets a note in place of each image, and one warning', () => {
    const info = getModelInfo('deepseek', 'deepseek-v4-flash');
    expect(info.input).not.toContain('image');
    const warnings: { setting: string; message: string }[] = [];
    const out = adjustRequest({ messages }, info, { onWarning: (w) => warnings.push(w) });
    const result = out.messages[2]!.parts[0]!;
    expect(result.type === 'tool-result' && result.output).toEqual({
      type: 'content',
      content: [
        { type: 'text', text: 'The page' },
        { type: 'text', text: '[file shot.png: not shown, deepseek:deepseek-v4-flash does not take images]' },
        { type: 'file', mediaType: 'application/pdf', data: 'JVBE' },
      ],
    });
    expect(warnings).toEqual([{ setting: 'input', message: 'deepseek:deepseek-v4-flash does not take images: 1 image(s) from tool results were left out (each named in its result)' }]);
    // The thread itself is not changed: only what this request sends.
    expect(messages[2]!.parts[0]).toMatchObject({ output: screenshot });
  });

  it.each([
    ['a model that takes images', getModelInfo('anthropic', 'claude-sonnet-4-5')],
    ['a model the catalog does not know', getModelInfo('acme', 'model-x')],
  ])('%s gets the images', (_, info) => {
    const warnings: unknown[] = [];
    expect(adjustRequest({ messages }, info, { onWarning: (w) => warnings.push(w) }).messages).toBe(messages);
    expect(warnings).toEqual([]);
  });
});
