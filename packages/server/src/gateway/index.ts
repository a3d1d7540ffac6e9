export { checkGatewayConfig, gatewayConfigProblems } from './check-gateway-config.ts';
export { createGateway, type GatewayFinish, type GatewayOptions } from './gateway.ts';
export { createWindowLimiter, type GatewayPrincipal, gatewayKeyOf, gatewayKeyProblems, MIN_GATEWAY_KEY_LENGTH, type StaticKeys, staticKeys } from './keys.ts';
export type { GatewayStoreOperation } from './options.ts';
export type { ResponseCacheOptions } from './response-cache.ts';
export { type CachedAnswer, memoryResponseCacheStore, type ResponseCacheBounds, type ResponseCacheStore } from './response-cache-store.ts';
export { createRouter, type GatewayRoute, type Router, type RouteTarget, type WeightedTarget } from './routing.ts';
export type { SpendBudget } from './spend.ts';
export { MAX_TRACKED_PRINCIPALS, memorySpendStore, type SpendStore, type SpendWindow } from './spend-store.ts';
