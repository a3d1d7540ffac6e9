export { turnAt, turnToEvents, type Script, type ScriptedToolCall, type ScriptedTurn } from './script.ts';
export { fakeModel, type FakeModel, type FakeModelOptions } from './fake-model.ts';
export { TINY_PNG_BASE64, fakeImageModel, type FakeImageCall, type FakeImageModel, type FakeImageModelOptions, type FakeImageRequest } from './fake-image-model.ts';
export {
  mockProviderServer,
  serveMockProvider,
  type MockProviderHandler,
  type MockProviderServer,
  type MockProviderServerOptions,
  type MockScript,
  type RecordedRequest,
} from './mock-server/index.ts';
export {
  createWireEncoder,
  encodeEventFrames,
  encodeEvents,
  encodeTurn,
  finalUsage,
  wireContentType,
  wireHttpError,
  type EncodeEventsOptions,
  type WireEncoder,
  type WireEncoderOptions,
  type WireError,
  type WireHttpError,
} from './wire/index.ts';
export { mockAzureServer, type MockAzureOptions } from './clouds/azure.ts';
export { converseStreamEvents, mockBedrockServer, type MockBedrockOptions } from './clouds/bedrock.ts';
export { encodeEventStreamMessage } from './clouds/event-stream-encoder.ts';
export { verifySigV4, type SigV4VerifierOptions } from './clouds/sigv4-verifier.ts';
export {
  mockGoogleTokenEndpoint,
  mockVertexServer,
  type MockGoogleTokenEndpoint,
  type MockGoogleTokenOptions,
  type MockVertexOptions,
} from './clouds/vertex.ts';
