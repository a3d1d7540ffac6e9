export { createParlanceApp, createParlanceHandler } from './handler.ts';
export { createRunHandOver, type RunHandOver } from './hand-over.ts';
export type { AuthorizeResult, ChatRunInput, ChatRunner, Env, ErrorContext, FinishedRun, ParlanceServerOptions, Principal } from './server-options.ts';
export type { AllowedOrigins } from './edge/origin.ts';
export type { RunnerProfile } from './server-trust.ts';
export { createMemoryRunStore, type MemoryRunStoreOptions } from './memory-run-store.ts';
export {
  DEFAULT_RUN_LIMITS,
  type ClaimedRun,
  type CreatedRun,
  type FollowOptions,
  type NewRun,
  type RunLimits,
  type RunRecord,
  type RunSignal,
  type RunStatus,
  type RunStore,
  type StoredEvent,
} from './run-store.ts';
export { chatBodySchema, resumeSchema } from './schema.ts';
export type { ModelEntry } from '@parlance/protocol';
export { DEFAULT_HEARTBEAT_MS, SSE_HEADERS, sseResponse } from './sse.ts';
export {
  createRateLimiter,
  gatewayRateLimit,
  memoryRateLimitStore,
  serverRateLimit,
  type MemoryRateLimitStoreOptions,
  type RateLimiter,
  type RateLimiterOptions,
  type RateLimitResult,
  type RateLimitStore,
} from './rate-limit.ts';
export { checkConfig, configProblems } from './check-config.ts';
export { catalogModels, engineRunner, engineRunnerWith, type EngineRunnerOptions, modelEntries } from './engine-runner.ts';
export { clientOptionsSchema, type ClientOptions } from './schema.ts';
export { checkBlobKey, type BlobInfo, type BlobStore } from './files/blob-store.ts';
export { createMemoryBlobStore, type MemoryBlobStoreOptions } from './files/memory-blob-store.ts';
export { createR2BlobStore, type R2BlobStoreOptions, type R2BucketLike } from './files/r2-blob-store.ts';
export { createS3BlobStore, type S3BlobStoreOptions } from './files/s3-blob-store.ts';
export type { S3Addressing } from './files/s3-object-url.ts';
export { DEFAULT_FILE_TYPES, DEFAULT_MAX_FILE_BYTES, type FileStoreOptions } from './files/file-options.ts';
