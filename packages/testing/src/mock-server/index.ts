export {
  mockProviderServer,
  type MockProviderHandler,
  type MockProviderServerOptions,
  type MockScript,
  type RecordedRequest,
} from './handler.ts';
export { serveMockProvider, type MockProviderServer } from './serve.ts';
