export { AI_SDK_MAX_TRACKED_CHATS, createAiSdkRoutes, type AiSdkRoutesOptions } from './ai-sdk-routes.ts';
export { createUiChunkMapper, type ParlanceUiChunk, type UiChunkMapper, type UiChunkMapperOptions } from './ui-message-chunks.ts';
export type { ParlanceUiMetadata, UiProtocolMessage } from './ui-metadata.ts';
export { uiMessagesToThread, type UiConversation } from './ui-messages.ts';
export type { FrontendRouteOptions } from './frontend-runs.ts';
