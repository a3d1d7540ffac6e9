import { getRequestListener } from '@hono/node-server';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

/**
 * `pnpm dev`: the demo API (src/server/api.ts, TypeScript source, as are the
 * workspace packages it imports) mounted on the Vite dev server under /api, so one
 * command serves the page and the API on one origin. The module is loaded once and
 * kept (a run store lives in it), reloaded only when its source changes.
 */
function demoApi(): Plugin {
  return {
    name: 'parlance-demo-api',
    configureServer(server) {
      server.middlewares.use(async (req, res, next) => {
        if (!req.url?.startsWith('/api/')) return next();
        try {
          const { devApi } = (await server.ssrLoadModule('/src/server/dev-api.ts')) as typeof import('./src/server/dev-api.ts');
          await getRequestListener(devApi().app.fetch)(req, res);
        } catch (error) {
          next(error);
        }
      });
    },
  };
}

export default defineConfig({
  plugins: [react(), demoApi()],
  server: { host: '127.0.0.1', port: 5173 },
});
