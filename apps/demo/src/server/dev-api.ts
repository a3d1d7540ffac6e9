/** One demo API per process (its in-memory run store must outlive a request). */
import { createDemoApi } from './api.ts';
import { demoMcpTools } from './demo-mcp.ts';

let api: ReturnType<typeof createDemoApi> | undefined;

export function devApi(): ReturnType<typeof createDemoApi> {
  // DEMO_MCP=0 leaves the demo MCP server off.
  api ??= createDemoApi(process.env.DEMO_MCP === '0' ? {} : { extraTools: [demoMcpTools()] });
  return api;
}
