export { mcpTools, type McpConnection, type McpTool, type McpToolSet, type McpToolSettings, type McpToolsOptions } from './mcp-tools.ts';
export { toToolOutput } from './call-result.ts';
