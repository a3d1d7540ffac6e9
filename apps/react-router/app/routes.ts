import { type RouteConfig, index, route } from '@react-router/dev/routes';

export default [
  index('routes/home.tsx'),
  // The Parlance API: a resource route (no component) for every path under /api/chat.
  route('api/chat/*', 'routes/api.chat.ts'),
] satisfies RouteConfig;
