export { createDurableObjectRunStore, type DurableObjectRunStoreOptions, type RunObjectNamespace } from './durable-object-run-store.ts';
export { ParlanceRunStoreObject } from './run-store-object.ts';
