// The demo's MCP server: a small stdio server written with the reference SDK, started
// with the demo as a child process (src/server/demo-mcp.ts). Its tools show up in the
// chat next to the demo's own; try "roll 2 dice".
import { randomInt } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'parlance-demo-dice', version: '1.0.0' });

server.registerTool(
  'roll_dice',
  {
    title: 'Roll dice',
    description: 'Rolls dice (from the demo MCP server). Returns each roll and the total.',
    inputSchema: { count: z.number().int().min(1).max(10).default(1), sides: z.number().int().min(2).max(100).default(6) },
    outputSchema: { rolls: z.array(z.number().int()), total: z.number().int(), sides: z.number().int() },
  },
  ({ count, sides }) => {
    const rolls = Array.from({ length: count }, () => randomInt(1, sides + 1));
    const result = { rolls, total: rolls.reduce((a, b) => a + b, 0), sides };
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  },
);

await server.connect(new StdioServerTransport());
