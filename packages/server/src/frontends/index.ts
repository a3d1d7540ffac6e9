export { createAiSdkRoutes, type AiSdkRoutesOptions } from './ai-sdk-routes.ts';
export { createAgUiRoutes, type AgUiRoutesOptions } from './ag-ui-routes.ts';
export { createUiChunkMapper, type ParlanceUiChunk, type ParlanceUiMetadata, type UiChunkMapper, type UiChunkMapperOptions } from './ui-message-chunks.ts';
export { uiMessagesToThread, type UiConversation } from './ui-messages.ts';
export { AG_UI_ID_SEPARATOR, createAgUiEventMapper, type AgUiEventMapper, type AgUiEventMapperOptions, type ParlanceAgUiState } from './ag-ui-events.ts';
export { agUiInputToThread, type AgUiConversation } from './ag-ui-messages.ts';
export type { FrontendRouteOptions } from './frontend-runs.ts';
