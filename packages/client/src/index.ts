export { ChatStore, type ChatOptions, type ClientTool, type Compose, type EditInput, type SendMode } from './chat-store.ts';
export { chatReducer, type ChatAction, type ChatState, type ChatStatus, type LiveRun, type PendingInput } from './chat-reducer.ts';
export { attachChatPersistence, type AttachPersistence, type Persistence, type PersistenceHost } from './chat-persistence.ts';
export { definePersistAdapter } from './define-persist-adapter.ts';
export { indexedDbAdapter } from './indexed-db-adapter.ts';
export { localStorageAdapter, type LocalStorageAdapterOptions } from './local-storage-adapter.ts';
export { mergeThreads, type MergedThread } from './merge.ts';
export {
  RECORD_VERSION,
  loadRecord,
  revisionTag,
  toRecord,
  tombstone,
  type AdapterOptions,
  type ChatRecord,
  type ListingAdapter,
  type PersistAdapter,
  type QuarantinedRecord,
  type RunCursor,
  type ThreadSummary,
} from './persist.ts';
export { onRunFinish, type RunFinish } from './run-events.ts';
export { announceThreadChange, onThreadChange, type ThreadChange } from './tab-sync.ts';
export { readSse, type FrameHandler, wireOfResponse } from './sse.ts';
export { Store, type Listener, type Schedule } from './store.ts';
export { StreamStore, type StreamOptions, type StreamSource, type StreamStoreState } from './stream-store.ts';
export {
  cancelRun,
  fetchModels,
  postChat,
  resumeRun,
  type TransportOptions,
} from './transport.ts';
export type { ChatRequestBody, ModelEntry, ResumeInput } from '@parlance/protocol';
export {
  DEFAULT_MAX_INLINE_BYTES,
  DEFAULT_MAX_UPLOAD_BYTES,
  uploadFile,
  type Attachment,
  type Attachments,
  type UploadProgress,
} from './attachments.ts';
