export {
  type DurableObjectGatewayStoreOptions,
  durableObjectResponseCacheStore,
  durableObjectSpendStore,
} from './durable-object-gateway-stores.ts';
export { type DurableObjectRateLimitStoreOptions, durableObjectRateLimitStore } from './durable-object-rate-limit-store.ts';
export { createDurableObjectRunStore, type DurableObjectRunStoreOptions, type RunObjectNamespace } from './durable-object-run-store.ts';
export { type GatewayStoreObjectState, ParlanceGatewayStoreObject } from './gateway-store-object.ts';
export { ParlanceRateLimitObject, type RateLimitObjectState } from './rate-limit-object.ts';
export { ParlanceRunStoreObject } from './run-store-object.ts';
export { parlanceRunObject, type ParlanceRunObject, type RunObjectOptions, type RunObjectState } from './run-object.ts';
export type { RunObjectStorage } from './stored-runs.ts';
