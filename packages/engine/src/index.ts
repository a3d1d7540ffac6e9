export * from './providers/index.ts';
export * from './loop/index.ts';
export {
  DEFAULT_MAX_RETRIES,
  DEFAULT_MAX_STEPS,
  DEFAULT_TOOL_TIMEOUT_MS,
  createEngine,
  threadFrom,
  type Engine,
  type GenerateResponse,
  type OutputOf,
  type StepRunResult,
} from './engine.ts';
export type {
  BeforeToolCallResult,
  CallOptions,
  EngineOptions,
  Hooks,
  MessageInput,
  ModelResolver,
  ResumeInput,
  SharedOptions,
  ToolCallInfo,
  ToolErrorPolicy,
  ToolResultInfo,
} from './options.ts';
export { ChatSession, SESSION_VERSION, type SessionCallOptions, type SessionRunOptions, type SessionState, type SessionStatus } from './session/session.ts';
export { StructuredOutputError, type OutputIssue } from './output/check-output.ts';
export { OUTPUT_TOOL_NAME, NATIVE_OUTPUT_DIALECTS, pickOutputMode, type OutputMode } from './output/structured-output.ts';
export { isStandardSchema, resolveSchema, type InferSchemaInput, type InferSchemaOutput, type ResolvedSchema, type SchemaLike } from './tools/schema.ts';
export { isToolSource, type ToolSource } from './tools/tool-source.ts';
export type { TelemetryOptions } from './telemetry/telemetry-options.ts';
export { TRACE_METADATA_KEY } from './telemetry/trace-context.ts';
export { isTool, tool, type AnyTool, type NeedsApproval, type Tool, type ToolConfig, type ToolContext } from './tools/tool.ts';
export * from './images/index.ts';
export { createThreadTrust, type ThreadTrust, type ThreadTrustOptions, type VerifyThreadOptions } from './trust/thread-trust.ts';
export { MIN_SECRET_LENGTH } from './trust/signing-keys.ts';
export * from './embeddings/index.ts';
export * from './audio/index.ts';
export * from './moderation/index.ts';
export { getMediaModelInfo, listMediaModels, type MediaKind, type MediaModelInfo, type MediaPricing } from './catalog/media-models.ts';
export {
  DEFAULT_SUMMARY_PROMPT,
  applySummaries,
  estimateRequestTokens,
  type ContextOptions,
  type ContextStrategy,
} from './context/context-policy.ts';
