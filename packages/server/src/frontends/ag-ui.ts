/**
 * `@parlance/server/ag-ui`: AG-UI 1.0 over Parlance runs. Its own entry because it needs
 * `@ag-ui/core` and `@ag-ui/encoder` (optional peers, with protobuf and a zod 3 of their own):
 * an app that serves only the AI SDK's `useChat` (`@parlance/server/frontends`) installs none of it.
 */
export { createAgUiRoutes, type AgUiRoutesOptions } from './ag-ui-routes.ts';
export { AG_UI_ID_SEPARATOR, createAgUiEventMapper, type AgUiEventMapper, type AgUiEventMapperOptions, type ParlanceAgUiState } from './ag-ui-events.ts';
export { agUiInputToThread, type AgUiConversation } from './ag-ui-messages.ts';
export type { FrontendRouteOptions } from './frontend-runs.ts';
