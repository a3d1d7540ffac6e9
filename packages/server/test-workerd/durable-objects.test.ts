// The Durable Object run store against real Durable Objects in workerd.
import { env } from 'cloudflare:test';
import { createDurableObjectRunStore, type RunObjectNamespace } from '../src/durable-objects/index.ts';
import { runStoreConformance } from '../test/run-store-conformance.ts';

const namespace = (env as unknown as { PARLANCE_RUNS: RunObjectNamespace }).PARLANCE_RUNS;
let n = 0;

// A name per store: each gets its own object, as separate deployments would.
runStoreConformance('durable objects (workerd)', { makeStore: (limits) => createDurableObjectRunStore({ namespace, name: `conformance-${++n}`, limits }) });
