// What the cloud provider tests (src/clouds/*/*.test.ts) share: one prompt, and reading a stream
// into its events, its text, its first error and the response they fold to.
import { collectResponse, type Event, type ModelRequest } from '@parlance/protocol';

/** A one-message prompt ("Hi"). */
export const PROMPT: Omit<ModelRequest, 'model'> = { messages: [{ id: 'm1', role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] };

/** Reads a model stream to its end: every event and the response they fold to. */
export async function run(events: AsyncIterable<Event>) {
  const all: Event[] = [];
  for await (const event of events) all.push(event);
  return { all, response: await collectResponse(all) };
}

/** The text of a stream's deltas, joined. */
export const textOf = (events: Event[]) => events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('');

/** The first error event, if any. */
export const errorOf = (events: Event[]) => events.find((e): e is Extract<Event, { type: 'error' }> => e.type === 'error');
