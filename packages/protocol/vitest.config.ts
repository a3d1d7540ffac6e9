import { defineConfig } from 'vitest/config';

// Property tests run hundreds of cases; a busy 2-core CI machine needs more than vitest's 5 s default.
export default defineConfig({ test: { include: ['src/**/*.test.ts'], testTimeout: 90_000 } });
