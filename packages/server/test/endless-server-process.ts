/**
 * A Parlance server in its own process for the backpressure bench and tests: the real engine
 * calling the upstream at MOCK_URL (Chat Completions), runs in the store STORE names ('redis' at
 * REDIS_URL, or 'memory'). BOUNDED=0 turns the bounds off to measure the old code path: the
 * engine's queue unbounded (maxQueuedBytes at its maximum) and the memory store without byte
 * budgets. Answers { type: 'rss' } with its resident set size over IPC.
 */
import { Redis } from 'ioredis';
import { createMemoryRunStore, type RunStore } from '../src/index.ts';
import { createRedisRunStore } from '../src/redis/index.ts';
import { serveOnMockProvider } from './mock-provider-server.ts';

export type ToEndless = { type: 'rss' } | { type: 'exit' };
export type FromEndless = { type: 'ready'; port: number } | { type: 'rss'; rss: number; heapUsed: number };

const mockUrl = process.env.MOCK_URL;
if (!mockUrl || !process.send) throw new Error('endless-server-process.ts is forked with MOCK_URL set');
const bounded = process.env.BOUNDED !== '0';
const UNBOUNDED = Number.MAX_SAFE_INTEGER;
const limits = { maxRunning: 10_000, leaseMs: Number(process.env.LEASE_MS ?? 15_000), storeGraceMs: Number(process.env.STORE_GRACE_MS ?? 5_000) };

let store: RunStore;
if (process.env.STORE === 'redis') {
  const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
  redis.on('error', () => {});
  store = createRedisRunStore({ redis, prefix: process.env.REDIS_PREFIX ?? 'endless:', limits });
} else {
  store = createMemoryRunStore({ limits, ...(bounded ? {} : { maxLiveBytes: UNBOUNDED, maxFinishedBytes: UNBOUNDED }) });
}

const server = serveOnMockProvider({
  mockUrl,
  store,
  model: 'endless',
  engine: bounded ? {} : { maxQueuedBytes: UNBOUNDED },
  onReady: (port) => process.send!({ type: 'ready', port } satisfies FromEndless),
});

process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToEndless) => {
  if (message.type === 'rss') {
    const { rss, heapUsed } = process.memoryUsage();
    process.send!({ type: 'rss', rss, heapUsed } satisfies FromEndless);
  }
  if (message.type === 'exit') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
