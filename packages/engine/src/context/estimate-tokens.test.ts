import type { Message, ToolContentOutput } from '@parlance/protocol';
import { describe, expect, it } from 'vitest';
import { estimateMessageTokens } from './estimate-tokens.ts';

const result = (output: unknown): Message => ({ id: 't', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'c', name: 'screenshot', output }] });

describe('estimateMessageTokens, tool results', () => {
  // A 1 MB screenshot from an MCP tool goes to the model as an image, not as 1 MB of text.
  const screenshot = 'A'.repeat(1_000_000);

  it('counts the image of a content output as an image, its text as text', () => {
    const output: ToolContentOutput = { type: 'content', content: [{ type: 'text', text: 'The page' }, { type: 'file', mediaType: 'image/png', data: screenshot }] };
    const asImage = estimateMessageTokens({ id: 'u', role: 'user', parts: [{ type: 'file', mediaType: 'image/png', data: screenshot }] });
    expect(estimateMessageTokens(result(output))).toBeLessThan(asImage + 20);
    expect(estimateMessageTokens(result(output))).toBeGreaterThan(asImage);
  });

  it('counts any other output as its JSON text', () => {
    expect(estimateMessageTokens(result({ data: screenshot }))).toBeGreaterThan(250_000);
  });
});
