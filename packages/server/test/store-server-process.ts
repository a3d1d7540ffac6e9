/**
 * One Parlance server instance in its own process, for the multi-instance tests and the
 * bench: the real engine calling the mock provider at MOCK_URL over HTTP, runs kept in
 * the store STORE names ('redis' at REDIS_URL, or 'memory'). Tells its parent its port
 * over IPC ({ type: 'ready', port }), and answers { type: 'commands' } with how many
 * Redis commands it sent (for the bench's round trips per delta).
 */
import { Redis } from 'ioredis';
import { tool } from '@parlance/engine';
import { z } from 'zod';
import { createMemoryRunStore, createRunHandOver, type RunStore } from '../src/index.ts';
import { createRedisRunStore } from '../src/redis/index.ts';
import { serveOnMockProvider } from './mock-provider-server.ts';

export type ToInstance = { type: 'commands' } | { type: 'exit' };
export type FromInstance =
  | { type: 'ready'; port: number }
  /** Commands sent, in all and by name (`evalsha` are the store's Lua writes; `set` a stored value). */
  | { type: 'commands'; count: number; byName: Record<string, number> }
  /** A tool began (TOOLS=1): the spy of the takeover tests, counted across processes. */
  | { type: 'tool'; name: string; toolCallId: string; pid: number }
  /** SIGTERM handed this many runs over. */
  | { type: 'handed-over'; count: number };

const mockUrl = process.env.MOCK_URL;
if (!mockUrl || !process.send) throw new Error('store-server-process.ts is forked with MOCK_URL set');
const leaseMs = Number(process.env.LEASE_MS ?? 15_000);

let commands = 0;
const byName: Record<string, number> = {};
let store: RunStore;
if (process.env.STORE === 'redis') {
  const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  // Count the round trips this instance makes on its command connection: one per command,
  // one per MULTI ... EXEC (ioredis writes a transaction's commands in one go).
  const sendCommand = redis.sendCommand.bind(redis);
  let inMulti = false;
  redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
    byName[command.name] = (byName[command.name] ?? 0) + 1;
    if (command.name === 'multi') inMulti = true;
    else if (command.name === 'exec') {
      inMulti = false;
      commands++;
    } else if (!inMulti) commands++;
    return (sendCommand as (...args: unknown[]) => unknown)(command, ...rest);
  }) as typeof redis.sendCommand;
  store = createRedisRunStore({ redis, prefix: process.env.REDIS_PREFIX ?? 'parlance:', limits: { leaseMs, maxRunning: 10_000 } });
} else {
  store = createMemoryRunStore({ limits: { leaseMs, maxRunning: 10_000 } });
}

// TOOLS=1: two tools that report each start to the parent and take `ms` (or until aborted; TOOL_HANG=1: until killed): `add` is
// not idempotent, `add_idempotent` is. A signing secret shared by every instance, as in production.
const addInput = z.object({ a: z.number(), b: z.number(), ms: z.number() });
const adder = (name: string, idempotent: boolean) =>
  tool({
    name,
    input: addInput,
    idempotent,
    execute: async ({ a, b, ms }, { toolCallId, signal }) => {
      process.send!({ type: 'tool', name, toolCallId, pid: process.pid } satisfies FromInstance);
      await new Promise((resolve) => {
        // TOOL_HANG=1: the call lasts until the process is killed or the run aborts it.
        const timer = process.env.TOOL_HANG === '1' ? undefined : setTimeout(resolve, ms);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            resolve(undefined);
          },
          { once: true },
        );
      });
      return a + b;
    },
  });
const tools = process.env.TOOLS === '1' ? { tools: [adder('add', false), adder('add_idempotent', true)] } : {};
const handOver = createRunHandOver();
const server = serveOnMockProvider({
  mockUrl,
  store,
  model: 'model',
  onReady: (port) => process.send!({ type: 'ready', port } satisfies FromInstance),
  engine: tools,
  app: { handOver, takeover: process.env.TAKEOVER !== '0', ...(process.env.TOOLS === '1' ? { secret: 'a-test-signing-secret-of-40-characters-xx' } : {}) },
});

// A deploy: hand every run over at once, then stop.
process.on('SIGTERM', () => {
  void handOver.handOver().then((count) => {
    process.send?.({ type: 'handed-over', count } satisfies FromInstance);
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
});

// The parent went away: do not outlive it.
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToInstance) => {
  if (message.type === 'commands') process.send!({ type: 'commands', count: commands, byName } satisfies FromInstance);
  if (message.type === 'exit') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
