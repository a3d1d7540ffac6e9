/**
 * The Parlance server under load, in its own process (forked by load.bench.ts), so its
 * event loop and heap are its own: the load generator and the mock provider live in
 * the parent. The parent talks to it over IPC:
 *   -> { type: 'measure', settle }   <- { type: 'measured', heapUsed, runs, sockets }
 *   -> { type: 'expire' }            <- { type: 'expired' }   (finished runs are now past retainMs)
 *   -> { type: 'cpu' }               <- { type: 'cpu', micros }  (user + system CPU time so far)
 *   -> { type: 'exit' }
 */
import { createMemoryRunStore } from '../src/index.ts';
import { serveOnMockProvider } from '../test/mock-provider-server.ts';

export type ToServer = { type: 'measure'; settle: boolean } | { type: 'expire' } | { type: 'cpu' } | { type: 'exit' };
export type FromServer =
  | { type: 'ready'; port: number }
  | { type: 'measured'; heapUsed: number; runs: number; sockets: number }
  | { type: 'expired' }
  | { type: 'cpu'; micros: number };

/** The store's default: finished runs stay resumable for 10 minutes. */
const RETAIN_MS = 10 * 60_000;

const gc = (globalThis as { gc?: () => void }).gc;
const send = (message: FromServer) => process.send!(message);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const openSockets = () => process.getActiveResourcesInfo().filter((kind) => kind === 'TCPSocketWrap').length;

async function heapUsed(): Promise<number> {
  for (let i = 0; i < 4; i++) {
    gc?.();
    await new Promise((resolve) => setImmediate(resolve));
  }
  await sleep(50);
  gc?.();
  return process.memoryUsage().heapUsed;
}

const mockUrl = process.env.MOCK_URL;
if (!mockUrl || !process.send) throw new Error('server-process.ts is forked by load.bench.ts with MOCK_URL set');

// The store keeps the default retention; the bench moves this clock past it instead of waiting 10 minutes.
let skew = 0;
const store = createMemoryRunStore({ limits: { retainMs: RETAIN_MS }, now: () => Date.now() + skew });
const server = serveOnMockProvider({ mockUrl, store, model: 'bench', onReady: (port) => send({ type: 'ready', port }) });

// The bench went away (crash, timeout): do not outlive it.
process.on('disconnect', () => process.exit(0));
process.on('message', (message: ToServer) => {
  if (message.type === 'measure') {
    void (async () => {
      // Settled: idle keep-alive connections (client and upstream pools, ~4-5 s) have closed,
      // so the figure compares like with like rather than counting socket buffers.
      if (message.settle) for (let waited = 0; openSockets() > 0 && waited < 10_000; waited += 100) await sleep(100);
      send({ type: 'measured', heapUsed: await heapUsed(), runs: store.size(), sockets: openSockets() });
    })();
  } else if (message.type === 'expire') {
    skew += RETAIN_MS + 1_000;
    send({ type: 'expired' });
  } else if (message.type === 'cpu') {
    const { user, system } = process.cpuUsage();
    send({ type: 'cpu', micros: user + system });
  } else if (message.type === 'exit') {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  }
});
