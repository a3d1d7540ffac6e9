/**
 * One Parlance server instance in its own process, for the multi-instance tests and the
 * bench: the real engine calling the mock provider at MOCK_URL over HTTP, runs kept in
 * the store STORE names ('redis' at REDIS_URL, or 'memory'). Tells its parent its port
 * over IPC ({ type: 'ready', port }), and answers { type: 'commands' } with how many
 * Redis commands it sent (for the bench's round trips per delta).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { openaiCompatible, resolveModel } from '@parlance/engine';
import { Redis } from 'ioredis';
import { createMemoryRunStore, createParlanceApp, engineRunner, type RunStore } from '../src/index.ts';
import { createRedisRunStore } from '../src/redis/index.ts';

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

const provider = openaiCompatible({ id: 'mock', baseURL: `${mockUrl}/v1`, apiKeyEnv: 'MOCK_API_KEY' });
const app = createParlanceApp({
  models: [{ id: 'mock:model', provider: 'mock' }],
  env: { MOCK_API_KEY: 'sk-test-not-a-secret' },
  store,
  run: engineRunner({ engine: { resolveModel: (spec, o) => resolveModel(spec, { ...o, providers: { mock: provider } }) } }),
});
const server = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }) as Server;
server.once('listening', () => process.send!({ type: 'ready', port: (server.address() as AddressInfo).port } satisfies FromInstance));

// The parent went away: do not outlive it.
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToInstance) => {
  if (message.type === 'commands') process.send!({ type: 'commands', count: commands } satisfies FromInstance);
  if (message.type === 'exit') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
