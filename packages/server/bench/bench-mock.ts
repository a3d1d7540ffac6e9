/**
 * The mock provider the load and run-store benches stream from (Chat Completions on
 * 127.0.0.1): `deltas` text deltas `delayMs` apart, then usage; and what a complete
 * stream of it must hold.
 */
import { type MockProviderServer, serveMockProvider } from '@parlance/testing';
import type { Expect } from './sse-client.ts';

export async function serveBenchMock(deltas: number, delayMs: number): Promise<{ mock: MockProviderServer; expect: Expect }> {
  const text = Array.from({ length: deltas }, (_, i) => `tok${i} `);
  const mock = await serveMockProvider({
    dialect: 'openai_completions',
    script: [{ text, usage: { inputTokens: 5, outputTokens: deltas }, delayMs }],
  });
  return { mock, expect: { deltas: text } };
}
