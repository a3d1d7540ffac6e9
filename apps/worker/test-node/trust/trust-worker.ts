// A Worker with a server tool that needs approval, for the two-isolate trust test: whichever
// isolate receives the approval must verify the pause another isolate signed, with the key both
// read from the PARLANCE_SECRET binding (never from the request).
import { openaiCompatible, resolveModel, tool } from '@parlance/engine';
import { createParlanceApp, engineRunner } from '@parlance/server';
import { mockProviderServer, type RecordedRequest } from '@parlance/testing';

const transfer = tool({
  name: 'transfer_money',
  input: { type: 'object', properties: { to: { type: 'string' }, amount: { type: 'number' } }, required: ['to', 'amount'], additionalProperties: false },
  needsApproval: true,
  execute: (input) => `sent ${(input as { amount: number }).amount} to ${(input as { to: string }).to}`,
});

/** The model answers a tool result with text, anything else with a call to transfer_money. */
function answered(request: RecordedRequest): boolean {
  const messages = (request.body as { messages?: { role?: string }[] }).messages ?? [];
  return messages.at(-1)?.role === 'tool';
}

const upstream = mockProviderServer({
  dialect: 'openai_completions',
  script: (request) => (answered(request) ? { text: 'Sent.' } : { toolCalls: [{ id: 'call_pay', name: 'transfer_money', input: { to: 'alice', amount: 5 } }] }),
});
const mock = openaiCompatible({ id: 'mock', baseURL: 'https://mock.invalid/v1', fetch: async (input, init) => upstream(new Request(input, init)) });

// Built at module load, as a Worker does: the secret is a binding, read per request.
export default createParlanceApp({
  models: [{ id: 'mock:model', provider: 'mock' }],
  run: engineRunner({ engine: { tools: [transfer], resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock } }) } }),
});
