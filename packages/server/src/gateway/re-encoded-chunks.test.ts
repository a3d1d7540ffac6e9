/**
 * A re-encoded stream is written to the caller in the chunks the upstream was read in: what one read of
 * the upstream decodes to goes out as one chunk (one write to the caller's socket), not one per delta.
 * Structural, not timed: the upstream's whole answer arrives in one read, and the caller counts chunks.
 */
import { DIALECT_IDS, type DialectId } from '@parlance/dialects';
import { mockProviderServer, type ScriptedTurn } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { post, target } from '../../test/gateway-calls.ts';
import { createGateway } from './gateway.ts';
import { staticKeys } from './keys.ts';

const DELTAS = 50;
const TURN: ScriptedTurn = { text: Array.from({ length: DELTAS }, (_, i) => `word${i} `), usage: { inputTokens: 10, outputTokens: DELTAS } };

/** The mock provider's streamed answer, sent as one chunk (as a fast upstream's bytes arrive in one read). */
function inOneRead(dialect: DialectId) {
  const mock = mockProviderServer({ dialect, script: () => TURN });
  return async (request: Request) => {
    const answer = await mock(request);
    const bytes = new Uint8Array(await answer.arrayBuffer());
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes);
        controller.close();
      },
    });
    return new Response(body, { status: answer.status, headers: answer.headers });
  };
}

async function chunksOf(response: Response): Promise<{ chunks: number; text: string }> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let chunks = 0;
  let text = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { chunks, text: text + decoder.decode() };
    chunks++;
    text += decoder.decode(value, { stream: true });
  }
}

const PAIRS = DIALECT_IDS.flatMap((upstream) => DIALECT_IDS.filter((caller) => caller !== upstream).map((caller) => [upstream, caller] as const));

describe('a re-encoded stream goes out in the chunks the upstream came in', () => {
  it.each(PAIRS)('%s upstream, %s caller: one upstream read of 50 deltas goes out in a handful of chunks, every delta in them', async (upstream, caller) => {
    const app = createGateway({ routes: { m: target(upstream, inOneRead(upstream)) }, authorize: staticKeys({ k1: { id: 'a' } }) });
    const response = await post(app, caller, 'm', true, caller === 'openai_completions' ? { stream_options: { include_usage: true } } : undefined);
    expect(response.status).toBe(200);
    const { chunks, text } = await chunksOf(response);
    for (let i = 0; i < DELTAS; i++) expect(text).toContain(`word${i} `);
    // The preamble (held until the answer starts), the content of the one read, the ending: never one per delta.
    expect(chunks).toBeLessThanOrEqual(4);
  });
});
