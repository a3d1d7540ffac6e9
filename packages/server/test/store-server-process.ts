/**
 * One Parlance server instance in its own process, for the multi-instance tests and the
 * bench: the real engine calling the mock provider at MOCK_URL over HTTP, runs kept in
 * the store STORE names ('redis' at REDIS_URL, or 'memory'). Tells its parent its port
 * over IPC ({ type: 'ready', port }), and answers { type: 'commands' } with how many
 * Redis commands it sent (for the bench's round trips per delta).
 */
import { Redis } from 'ioredis';
import { createMemoryRunStore, type RunStore } from '../src/index.ts';
import { createRedisRunStore } from '../src/redis/index.ts';
import { serveOnMockProvider } from './mock-provider-server.ts';

export type ToInstance = { type: 'commands' } | { type: 'exit' };
export type FromInstance = { type: 'ready'; port: number } | { type: 'commands'; count: number };

const mockUrl = process.env.MOCK_URL;
if (!mockUrl || !process.send) throw new Error('store-server-process.ts is forked with MOCK_URL set');
const leaseMs = Number(process.env.LEASE_MS ?? 15_000);

let commands = 0;
let store: RunStore;
if (process.env.STORE === 'redis') {
  const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1 });
  // Count the round trips this instance makes on its command connection: one per command,
  // one per MULTI ... EXEC (ioredis writes a transaction's commands in one go).
  const sendCommand = redis.sendCommand.bind(redis);
  let inMulti = false;
  redis.sendCommand = ((command: { name: string }, ...rest: unknown[]) => {
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

const server = serveOnMockProvider({ mockUrl, store, model: 'model', onReady: (port) => process.send!({ type: 'ready', port } satisfies FromInstance) });

// The parent went away: do not outlive it.
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToInstance) => {
  if (message.type === 'commands') process.send!({ type: 'commands', count: commands } satisfies FromInstance);
  if (message.type === 'exit') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
