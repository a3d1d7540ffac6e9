export { createGateway, type GatewayFinish, type GatewayOptions } from './gateway.ts';
export { checkGatewayConfig, gatewayConfigProblems } from './check-gateway-config.ts';
export { createWindowLimiter, gatewayKeyOf, gatewayKeyProblems, MIN_GATEWAY_KEY_LENGTH, staticKeys, type GatewayPrincipal, type StaticKeys } from './keys.ts';
export { createRouter, type GatewayRoute, type Router, type RouteTarget, type WeightedTarget } from './routing.ts';
export type { ResponseCacheOptions } from './response-cache.ts';
