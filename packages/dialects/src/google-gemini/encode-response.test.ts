import { collectResponse, type Event, type Response } from '@parlance/protocol';
import { decodeStream } from '../registry.ts';
import { describe, expect, it } from 'vitest';
import { encodeResponseStream } from '../shared/response-encoding.ts';
import { encodeGeminiResponse, geminiResponseEncoding } from './encode-response.ts';

/** The parts of every frame of an encoded stream, in order. */
function streamedParts(events: Event[]): Record<string, unknown>[] {
  return encodeResponseStream(geminiResponseEncoding, events)
    .split('\r\n\r\n')
    .filter((frame) => frame.startsWith('data: '))
    .flatMap((frame) => JSON.parse(frame.slice(6)).candidates[0].content.parts as Record<string, unknown>[]);
}

const reasoning = (text: boolean): Event[] => [
  { type: 'message-start' },
  { type: 'reasoning-start', id: 'r' },
  { type: 'reasoning-delta', id: 'r', delta: 'Count the r.' },
  { type: 'reasoning-end', id: 'r', signature: 'sig_1' },
  ...(text ? ([{ type: 'text-start', id: 't' }, { type: 'text-delta', id: 't', delta: 'Three.' }, { type: 'text-end', id: 't' }] as Event[]) : []),
  { type: 'finish', finishReason: 'stop', usage: {} },
];

describe('Gemini thought signatures sit where Gemini puts them (never on a thought part)', () => {
  it.each([
    { name: 'streamed, text after the thoughts: on the first text part', text: true, signed: { text: 'Three.', thoughtSignature: 'sig_1' } },
    { name: 'streamed, no text: on an empty text part, as the recordings end', text: false, signed: { text: '', thoughtSignature: 'sig_1' } },
  ])('$name', ({ text, signed }) => {
    const parts = streamedParts(reasoning(text));
    expect(parts.filter((part) => 'thoughtSignature' in part)).toEqual([signed]);
    expect(parts.filter((part) => part.thought === true).every((part) => !('thoughtSignature' in part))).toBe(true);
  });

  it.each([true, false])('not streamed (text %s): on a non-thought part', (text) => {
    const response: Response = {
      message: { id: 'm', role: 'assistant', parts: [{ type: 'reasoning', text: 'Count.', signature: 'sig_1' }, ...(text ? [{ type: 'text' as const, text: 'Three.' }] : [])] },
      finishReason: 'stop',
      usage: {},
      warnings: [],
    } as unknown as Response;
    const parts = (encodeGeminiResponse(response) as { candidates: { content: { parts: Record<string, unknown>[] } }[] }).candidates[0]!.content.parts;
    expect(parts.filter((part) => 'thoughtSignature' in part)).toEqual([{ text: text ? 'Three.' : '', thoughtSignature: 'sig_1' }]);
  });

  it.each([true, false])('decodes back to reasoning with its signature (text %s)', async (text) => {
    const body = new Response(encodeResponseStream(geminiResponseEncoding, reasoning(text))).body!;
    const response = await collectResponse(decodeStream('google_gemini', body));
    expect(response.message.parts[0]).toMatchObject({ type: 'reasoning', signature: 'sig_1' });
    expect(response.message.parts.filter((part) => part.type === 'text').map((part) => part.type === 'text' && part.text)).toEqual(text ? ['Three.'] : []);
  });
});
