import { defineConfig } from 'vitest/config';

// The first test of a file that validates against the Anthropic or OpenAI schema compiles it
// (tens of thousands of lines): seconds on a loaded 2-core machine, so the default 5 s is too short.
export default defineConfig({ test: { include: ['src/**/*.test.ts', 'test/**/*.test.ts'], testTimeout: 30_000 } });
