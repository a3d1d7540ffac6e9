/**
 * `@parlance/engine/vertex`: Google Vertex AI (Gemini, Claude on Vertex, express mode) and service-account
 * token exchange, in their own entry point so an app that does not use Vertex does not bundle them.
 */
export {
  CLOUD_PLATFORM_SCOPE,
  serviceAccountFromEnv,
  serviceAccountTokens,
  type AccessTokenSource,
  type ServiceAccountKey,
  type ServiceAccountTokenOptions,
} from './service-account.ts';
export { VERTEX_ANTHROPIC_VERSION, createVertex, isVertexClaude, vertex, vertexBaseURL, vertexScope, type VertexOptions } from './vertex.ts';
