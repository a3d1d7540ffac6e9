import { ParlanceError, toolContentOf } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { toToolOutput } from './call-result.ts';

describe('toToolOutput', () => {
  it('text blocks become their text; structured content wins over its text copy', () => {
    expect(toToolOutput({ content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }, 't')).toBe('a\n\nb');
    expect(toToolOutput({ content: [{ type: 'text', text: '{"n":1}' }], structuredContent: { n: 1 } }, 't')).toEqual({ n: 1 });
    expect(toToolOutput({ content: [] }, 't')).toBe('');
  });

  it('images, audio and binary resources become files of a content output; text resources and links are text; unknown blocks are skipped', () => {
    const output = toToolOutput(
      {
        content: [
          { type: 'text', text: 'Here:' },
          { type: 'image', data: 'AAA', mimeType: 'image/png' },
          { type: 'audio', data: 'BBB', mimeType: 'audio/wav' },
          { type: 'resource', resource: { uri: 'file:///tmp/report.pdf', mimeType: 'application/pdf', blob: 'CCC' } },
          { type: 'resource', resource: { uri: 'test://blob', blob: 'DDD' } },
          { type: 'resource', resource: { uri: 'file:///a.txt', mimeType: 'text/plain', text: 'hello' } },
          { type: 'resource_link', uri: 'file:///b.bin', name: 'b.bin', mimeType: 'application/octet-stream', description: 'The build' },
          { type: 'hologram', data: '?' },
        ],
        // Structured content cannot hold the files: the content output wins.
        structuredContent: { n: 1 },
      },
      't',
    );
    expect(output).toEqual({
      type: 'content',
      content: [
        { type: 'text', text: 'Here:' },
        { type: 'file', mediaType: 'image/png', data: 'AAA' },
        { type: 'file', mediaType: 'audio/wav', data: 'BBB' },
        { type: 'file', mediaType: 'application/pdf', data: 'CCC', filename: 'report.pdf' },
        { type: 'file', mediaType: 'application/octet-stream', data: 'DDD', filename: 'blob' },
        { type: 'text', text: '[resource file:///a.txt]\nhello' },
        { type: 'text', text: '[resource link b.bin: file:///b.bin (application/octet-stream)] The build' },
      ],
    });
    expect(toolContentOf(output)).toBe(output);
  });

  it('text resources and links alone are text', () => {
    expect(toToolOutput({ content: [{ type: 'resource_link', uri: 'file:///b', name: 'b' }] }, 't')).toBe('[resource link b: file:///b]');
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
