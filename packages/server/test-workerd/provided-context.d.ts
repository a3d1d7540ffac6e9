// What the workerd project's global setup (test/s3-global-setup.ts, in Node) provides to the tests.
import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    s3Endpoint: string;
  }
}
