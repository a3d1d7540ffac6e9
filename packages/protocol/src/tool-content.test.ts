import { describe, expect, it } from 'vitest';
import { toolContentOf } from './tool-content.ts';

describe('toolContentOf', () => {
  it('reads a content output of text and files', () => {
    const output = { type: 'content', content: [{ type: 'text', text: 'A chart' }, { type: 'file', mediaType: 'image/png', data: 'iVBO', filename: 'chart.png' }] };
    expect(toolContentOf(output)).toBe(output);
    expect(toolContentOf({ type: 'content', content: [] })).toEqual({ type: 'content', content: [] });
  });

  // Any other output is a JSON value: one malformed part keeps the whole output JSON.
  it.each([
    ['a string', 'iVBO'],
    ['null', null],
    ['an array', [{ type: 'text', text: 'x' }]],
    ['another type', { type: 'json', content: [] }],
    ['content that is not a list', { type: 'content', content: 'x' }],
    ['a text part without text', { type: 'content', content: [{ type: 'text' }] }],
    ['a file without data', { type: 'content', content: [{ type: 'file', mediaType: 'image/png' }] }],
    ['a file without a media type', { type: 'content', content: [{ type: 'file', data: 'iVBO' }] }],
    ['a file named by a number', { type: 'content', content: [{ type: 'file', mediaType: 'image/png', data: 'iVBO', filename: 1 }] }],
    ['an unknown part', { type: 'content', content: [{ type: 'image', data: 'iVBO' }] }],
    ['a null part', { type: 'content', content: [null] }],
  ])('leaves %s alone', (_, output) => {
    expect(toolContentOf(output)).toBeUndefined();
  });
});
