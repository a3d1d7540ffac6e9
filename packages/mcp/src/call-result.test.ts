import { ParlanceError } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { toToolOutput } from './call-result.ts';

describe('toToolOutput', () => {
  it('text blocks become their text; structured content wins over its text copy', () => {
    expect(toToolOutput({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, 't')).toBe('a\n\nb');
    expect(toToolOutput({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }, 't')).toEqual({ n: 1 });
    expect(toToolOutput({ content: [] }, 't')).toBe('');
  });

  it('images, audio and resources keep their data in plain blocks; unknown block types are skipped', () => {
    const output = toToolOutput(
      {
        content: [
          { type: 'image', data: 'AAA', mimeType: 'image/png' },
          { type: 'audio', data: 'BBB', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } },
          { type: 'resource_link', uri: 'file:///b.bin', name: 'b.bin' },
          { type: 'hologram', data: '?' },
        ],
      },
      't',
    );
    expect(output).toEqual({
      content: [
        { type: 'image', mediaType: 'image/png', data: 'AAA' },
        { type: 'audio', mediaType: 'audio/wav', data: 'BBB' },
        { type: 'resource', uri: 'file:///a.txt', mediaType: 'text/plain', text: 'hello' },
        { type: 'resource_link', uri: 'file:///b.bin', name: 'b.bin' },
      ],
    });
  });

  it('isError throws a tool_error carrying the text', () => {
    let thrown: unknown;
    try {
      toToolOutput({ content: [{ type: 'text', text: 'No such file' }], isError: true }, 'read');
    } catch (error) {
      thrown = error;
    }
    expect(ParlanceError.isInstance(thrown) && [thrown.code, thrown.message]).toEqual(['tool_error', 'No such file']);
    expect(() => toToolOutput({ content: [], isError: true }, 'read')).toThrow('The MCP tool "read" reported an error');
  });

  it('a 2024-10-07 server\'s toolResult is the output', () => {
    expect(toToolOutput({ toolResult: { ok: true } }, 't')).toEqual({ ok: true });
  });
});
