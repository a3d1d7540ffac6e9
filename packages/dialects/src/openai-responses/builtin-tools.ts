/**
 * Built-in (provider-executed) tools of the Responses API. Each arrives as one output
 * item that holds both the call and its result; the decoder turns it into a
 * provider-executed `tool-call` (input: what the model asked for) and a `tool-result`
 * whose `output` is the item verbatim, so the item can be sent back unchanged in the
 * next request's `input` (with `store: false` nothing is kept server-side).
 * Output items: https://platform.openai.com/docs/api-reference/responses/object#responses/object-output
 * Built-in tools guide: https://platform.openai.com/docs/guides/tools
 */
import type { Event } from '@parlance/protocol';
import { parseToolInput } from '../shared/stream-state.ts';

/** Output item type -> the tool name the protocol shows. */
const NAMES: Record<string, string> = {
  web_search_call: 'web_search',
  file_search_call: 'file_search',
  code_interpreter_call: 'code_interpreter',
  image_generation_call: 'image_generation',
  mcp_call: 'mcp',
  mcp_list_tools: 'mcp_list_tools',
  tool_search_call: 'tool_search',
};

type Item = Record<string, unknown>;

/**
 * Whether an item is a call the provider runs itself. `tool_search_call` runs on the
 * server unless `execution: 'client'` (then the app must answer it, like a function call).
 */
export function isBuiltinCall(item: Item): boolean {
  const type = item.type as string;
  if (type === 'tool_search_call') return item.execution !== 'client';
  return type in NAMES;
}

/**
 * What the request declared, read from the `tools` the response object echoes
 * (`response.created`). Only used to tell xAI's server-side tools apart.
 */
export interface DeclaredTools {
  /** Names of the function and custom tools the app declared (namespaces included). */
  names: Set<string>;
  /** Whether a server-side tool (web_search, x_search, code_execution, ...) was enabled. */
  serverTools: boolean;
}

const CLIENT_TOOL_TYPES = new Set(['function', 'custom', 'namespace']);

export function declaredTools(tools: unknown): DeclaredTools | undefined {
  if (!Array.isArray(tools) || tools.length === 0) return undefined;
  const declared: DeclaredTools = { names: new Set(), serverTools: false };
  const visit = (list: unknown[]) => {
    for (const tool of list as Item[]) {
      if (!tool || typeof tool !== 'object') continue;
      if (typeof tool.name === 'string') declared.names.add(tool.name);
      if (Array.isArray(tool.tools)) visit(tool.tools);
      if (typeof tool.type === 'string' && !CLIENT_TOOL_TYPES.has(tool.type)) declared.serverTools = true;
    }
  };
  visit(tools);
  // Tools that tool_search loads are not in the echoed list: nothing can be told apart then.
  if ((tools as Item[]).some((t) => t?.type === 'tool_search')) return undefined;
  return declared;
}

/**
 * xAI runs its server-side tools (x_search's `x_keyword_search`, `view_x_video`, ...) and
 * reports each as a `custom_tool_call` item, while an app's own tools arrive as
 * `function_call` (https://docs.x.ai/docs/guides/tools/advanced-usage). A custom tool
 * call is the provider's when the request enabled server-side tools and declared no
 * function or custom tool of that name; without an echoed tool list it is the app's.
 */
export function isServerCustomCall(item: Item, declared: DeclaredTools | undefined): boolean {
  return item.type === 'custom_tool_call' && !!declared?.serverTools && typeof item.name === 'string' && !declared.names.has(item.name);
}

export function builtinName(type: string): string {
  return NAMES[type] ?? type;
}

/** What the model asked the tool to do (the call's arguments), read from the finished item. */
export function builtinInput(item: Item): unknown {
  switch (item.type) {
    case 'web_search_call':
      return item.action ?? {};
    case 'file_search_call':
      return { queries: item.queries ?? [] };
    case 'code_interpreter_call':
      return { code: item.code ?? '', container_id: item.container_id };
    case 'mcp_call': {
      const args = typeof item.arguments === 'string' ? parseToolInput(item.arguments) : { ok: true as const, value: item.arguments };
      return { server_label: item.server_label, name: item.name, arguments: args.ok ? args.value : args.raw };
    }
    case 'mcp_list_tools':
      return { server_label: item.server_label };
    case 'tool_search_call':
      return item.arguments ?? {};
    case 'image_generation_call':
      return item.revised_prompt !== undefined ? { revised_prompt: item.revised_prompt } : {};
    default:
      return {};
  }
}

export function builtinFailed(item: Item): boolean {
  return item.status === 'failed' || (item.error !== undefined && item.error !== null && item.error !== '');
}

/** Images a built-in tool produced, as `file` events (code interpreter image outputs, generated images). */
export function builtinFiles(item: Item, itemId: string): Event[] {
  const providerState = { openai_responses: { itemId } };
  const out: Event[] = [];
  if (item.type === 'image_generation_call' && typeof item.result === 'string' && item.result !== '') {
    const format = typeof item.output_format === 'string' ? item.output_format : 'png';
    out.push({ type: 'file', mediaType: `image/${format}`, data: item.result, providerState });
  }
  if (item.type === 'code_interpreter_call' && Array.isArray(item.outputs)) {
    for (const output of item.outputs as Item[]) {
      if (output?.type !== 'image' || typeof output.url !== 'string') continue;
      const match = /^data:([^;,]+);base64,(.*)$/s.exec(output.url);
      if (match) out.push({ type: 'file', mediaType: match[1]!, data: match[2]!, providerState });
      else out.push({ type: 'file', mediaType: 'image/*', url: output.url, providerState });
    }
  }
  return out;
}
