// An empty Worker: the test runs mcpTools inside workerd itself.
export default {
  async fetch(): Promise<Response> {
    return new Response('parlance mcp test');
  },
};
