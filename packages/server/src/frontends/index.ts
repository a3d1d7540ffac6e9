export { createAiSdkRoutes, type AiSdkRoutesOptions } from './ai-sdk-routes.ts';
export { createUiChunkMapper, type ParlanceUiChunk, type ParlanceUiMetadata, type UiChunkMapper, type UiChunkMapperOptions } from './ui-message-chunks.ts';
export { uiMessagesToThread, type UiConversation } from './ui-messages.ts';
export type { FrontendRouteOptions } from './frontend-runs.ts';
