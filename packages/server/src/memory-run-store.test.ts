import { runStoreConformance } from '../test/run-store-conformance.ts';
import { createMemoryRunStore } from './memory-run-store.ts';

runStoreConformance('memory', { makeStore: (limits) => createMemoryRunStore({ limits }) });
