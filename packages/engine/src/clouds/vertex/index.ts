/**
 * `@parlance/engine/vertex`: Google Vertex AI (Gemini, Claude on Vertex, express mode) and service-account
 * token exchange, in their own entry point so an app that does not use Vertex does not bundle them.
 */
export {
  type AccessTokenSource,
  CLOUD_PLATFORM_SCOPE,
  type ServiceAccountKey,
  type ServiceAccountTokenOptions,
  serviceAccountFromEnv,
  serviceAccountTokens,
} from './service-account.ts';
export { createVertex, isVertexClaude, VERTEX_ANTHROPIC_VERSION, type VertexOptions, vertex, vertexBaseURL, vertexScope } from './vertex.ts';
