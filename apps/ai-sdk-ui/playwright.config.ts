import { frameworkConfig } from '@parlance/framework-e2e';

export default frameworkConfig({
  command: () => 'tsx server.ts',
  testDir: './e2e',
  readyPath: '/health',
  expectTimeoutMs: 15_000,
  env: { DELAY_SCALE: '0.5', CANCEL_AFTER_MS: '1000' },
});
