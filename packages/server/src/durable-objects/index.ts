export { createDurableObjectRunStore, type DurableObjectRunStoreOptions, type RunObjectNamespace } from './durable-object-run-store.ts';
export { durableObjectRateLimitStore, type DurableObjectRateLimitStoreOptions } from './durable-object-rate-limit-store.ts';
export { ParlanceRateLimitObject, type RateLimitObjectState } from './rate-limit-object.ts';
export { ParlanceRunStoreObject } from './run-store-object.ts';
