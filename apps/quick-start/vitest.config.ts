import { defineConfig } from 'vitest/config';

// A server with tools signs them: PARLANCE_SECRET is read from the environment, as in production.
export default defineConfig({ test: { environment: 'jsdom', include: ['*.test.tsx'], testTimeout: 30_000, env: { PARLANCE_SECRET: 'quick-start-test-secret-0123456789abcdef' } } });
