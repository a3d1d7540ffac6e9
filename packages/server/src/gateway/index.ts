export { createGateway, type GatewayFinish, type GatewayOptions } from './gateway.ts';
export { createWindowLimiter, gatewayKeyOf, staticKeys, type GatewayPrincipal } from './keys.ts';
export { createRouter, type GatewayRoute, type Router, type RouteTarget } from './routing.ts';
