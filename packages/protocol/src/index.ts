export {
  RUN_ID_HEADER,
  type CancelResponseBody,
  type ChatRequestBody,
  type ErrorResponseBody,
  type ModelCapabilities,
  type ModelEntry,
  type ModelsResponseBody,
  type ResumeInput,
  type RunCursor,
} from './contract.ts';
export {
  ERROR_CODES,
  ParlanceError,
  errorCodeForStatus,
  isAbortError,
  isErrorCode,
  type ErrorCode,
  type ErrorPayload,
  type ParlanceErrorOptions,
} from './error.ts';
export {
  EVENT_TYPES,
  MODEL_EVENT_TYPES,
  PROTOCOL_VERSION,
  errorEvent,
  type ApprovalRequestedEvent,
  type AskUserEvent,
  type ChatFinishEvent,
  type ErrorEvent,
  type Event,
  type EventOf,
  type EventType,
  type FileEvent,
  type FinishEvent,
  type MessageMetadataEvent,
  type MessageStartEvent,
  type ObjectDeltaEvent,
  type ReasoningDeltaEvent,
  type ReasoningEndEvent,
  type ReasoningStartEvent,
  type RunPausedEvent,
  type SourceEvent,
  type StepFinishEvent,
  type StepRestartedEvent,
  type StepStartEvent,
  type SummaryEvent,
  type CompactionEvent,
  type TextDeltaEvent,
  type TextEndEvent,
  type TextStartEvent,
  type ToolCallDeltaEvent,
  type ToolCallEndEvent,
  type ToolCallStartEvent,
  type ToolResultEvent,
  type UsageEvent,
  type WarningEvent,
} from './events.ts';
export { PENDING_KINDS, type PendingInput, type PendingKind, type RunPause } from './pause.ts';
export { pendingInputs } from './pending.ts';
export { FINISH_REASONS, HALT_REASONS, type FinishReason, type HaltReason } from './finish.ts';
export { collectResponse, createFoldState, createThreadFold, foldEvents, reduceEvents, threadAfterRun, toResponse, type FoldState } from './fold.ts';
export {
  messageText,
  partText,
  type FilePart,
  type FileRef,
  type InlineFilePart,
  type Message,
  type Part,
  type PartType,
  type Provenance,
  type ProviderState,
  type ReasoningPart,
  type Role,
  type SourcePart,
  type SummaryPart,
  type CompactionPart,
  type TextPart,
  type ToolCallPart,
  type ToolResultPart,
} from './message.ts';
export type {
  CacheSetting,
  JSONSchema,
  LanguageModel,
  ModelCallOptions,
  ModelRequest,
  ReasoningEffort,
  StructuredOutput,
  ThinkingSetting,
  ToolChoice,
  ToolDefinition,
} from './request.ts';
export type { Response } from './response.ts';
export { toolContentOf, type ToolContentOutput, type ToolContentPart } from './tool-content.ts';
export { BRANCH_ROOT, forkAt, siblingsOf, switchBranch, type Siblings } from './branches.ts';
export { THREAD_VERSION, type Thread, type ThreadBranch } from './thread-shape.ts';
export { messageSchema, partSchema } from './schema.ts';
export {
  createThread,
  parseThread,
  parseThreadLenient,
  runMessages,
  serializeThread,
  type QuarantinedMessage,
} from './thread.ts';
export { USAGE_KEYS, addUsage, mergeUsage, type Usage } from './usage.ts';
export { formatLeanFrame, LEAN_WIRE_ACCEPT, type LeanFrame, WIRE_VERSION, leanReader, leanWire, wireOf } from './lean-wire.ts';
export { DELTA_ID_EVERY, formatEventId, formatSseFrame, frameEventId, parseEventId, sendsEventId } from './wire.ts';
export { FILE_TYPE_HEADER, acceptsFile, fileModality, type FileUploadResponseBody } from './files.ts';
export { heldQueue, takeReady, type HeldQueue, type ReadyIterator } from './ready-iterator.ts';
