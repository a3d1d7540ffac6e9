/**
 * Vitest global setup of the workerd project (it runs in Node): the local S3 server of
 * `s3-server.ts` (s3rver behind the SigV4-verifying proxy), its endpoint provided to the tests
 * inside workerd as `inject('s3Endpoint')` (workerd cannot start a server itself).
 */
import type { TestProject } from 'vitest/node';
import { startLocalS3 } from './s3-server.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const s3 = await startLocalS3(['files']);
  project.provide('s3Endpoint', s3.endpoint);
  return () => s3.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}
