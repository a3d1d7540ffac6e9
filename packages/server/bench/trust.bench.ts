/**
 * Trust bench: what signing and verifying a browser-held thread costs the server.
 * A 500-message thread (a user message, 249 assistant/tool pairs each with one tool call
 * and its result, and a last assistant message paused on a call that waits for approval)
 * is signed whole (`signThread`), then verified with that approval (`verifyThread`, what
 * every `POST /chat` does), and the run's events of one more step are signed as they pass
 * (`signEvents`). Medians over several rounds, after a warm-up; Web Crypto HMAC-SHA-256.
 *
 * Run: `pnpm bench` (after the load bench) or `node --import tsx bench/trust.bench.ts`.
 * Knobs: BENCH_TRUST_MESSAGES (500), BENCH_TRUST_ROUNDS (20). Prints numbers; never fails on a timing.
 */
import { createThreadTrust } from '@parlance/engine';
import { createThread, type Event, type Message } from '@parlance/protocol';

const MESSAGES = Number(process.env.BENCH_TRUST_MESSAGES ?? 500);
const ROUNDS = Number(process.env.BENCH_TRUST_ROUNDS ?? 20);
const trust = createThreadTrust({ secret: 'bench-secret-0123456789abcdef0123456789abcdef' });

function buildThread() {
  const messages: Message[] = [{ id: 'u0', role: 'user', parts: [{ type: 'text', text: 'Plan a trip through every city.' }] }];
  let i = 0;
  while (messages.length < MESSAGES - 1) {
    const input = { city: `City ${i}`, days: i % 7, tags: ['museum', 'food', `t${i}`], budget: { eur: 100 + i } };
    messages.push({ id: `a${i}`, role: 'assistant', parts: [{ type: 'text', text: `Looking up city ${i}.` }, { type: 'tool-call', id: `call_${i}`, name: 'lookup_city', input }] });
    messages.push({ id: `t${i}`, role: 'tool', parts: [{ type: 'tool-result', toolCallId: `call_${i}`, name: 'lookup_city', output: { ...input, weather: 'sunny', note: 'x'.repeat(200) } }] });
    i++;
  }
  const last: Message = {
    id: 'a_last',
    role: 'assistant',
    parts: [{ type: 'tool-call', id: 'call_book', name: 'book_trip', input: { cities: i } }],
    pause: { waitingFor: [{ kind: 'approval', toolCallId: 'call_book', name: 'book_trip', input: { cities: i } }] },
  };
  messages.push(last);
  return createThread('bench-thread', messages);
}

async function median(run: () => Promise<unknown>): Promise<number> {
  await run(); // warm-up (imports the key, JIT)
  const times: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const start = performance.now();
    await run();
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

async function* stepEvents(): AsyncGenerator<Event> {
  yield { type: 'step-start', step: 0 };
  yield { type: 'message-start', messageId: 'a_next' };
  yield { type: 'tool-call-start', id: 'call_next', name: 'lookup_city' };
  yield { type: 'tool-call-delta', id: 'call_next', delta: '{"city":"Next"}' };
  yield { type: 'tool-call-end', id: 'call_next', input: { city: 'Next' } };
  yield { type: 'finish', finishReason: 'tool-calls', usage: {} };
  yield { type: 'tool-result', toolCallId: 'call_next', name: 'lookup_city', output: { city: 'Next' }, messageId: 't_next' };
  yield { type: 'chat-finish', haltReason: 'completed', usage: {} };
}

async function main() {
  const unsigned = buildThread();
  const parts = unsigned.messages.reduce((n, m) => n + m.parts.filter((p) => p.type === 'tool-call' || p.type === 'tool-result').length, 0);
  const bytes = JSON.stringify(unsigned).length;
  const signed = await trust.signThread(unsigned);
  const resume = { approvals: [{ toolCallId: 'call_book', approved: true }] };
  await trust.verifyThread(signed, { resume }); // must pass: the bench measures the accepting path

  const sign = await median(() => trust.signThread(unsigned));
  const verify = await median(() => trust.verifyThread(signed, { resume }));
  const events = await median(async () => {
    for await (const _ of trust.signEvents(signed, stepEvents()));
  });
  console.log(`\nTrust boundary: a ${unsigned.messages.length}-message thread (${parts} signed tool parts + 1 pause, ${(bytes / 1024).toFixed(0)} KB), median of ${ROUNDS} rounds:`);
  console.log(`  sign the whole thread (signThread)            ${sign.toFixed(2)} ms  (${((sign * 1000) / (parts + 1)).toFixed(1)} µs a signature)`);
  console.log(`  verify it with an approval (every POST /chat) ${verify.toFixed(2)} ms  (${((verify * 1000) / (parts + 1)).toFixed(1)} µs a signature)`);
  console.log(`  sign one more step's events as they pass      ${events.toFixed(2)} ms  (folds onto the ${unsigned.messages.length}-message thread)`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
