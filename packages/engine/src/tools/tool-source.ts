/**
 * A list of tools that may change while a run goes on (an MCP server announcing
 * `notifications/tools/list_changed`). The loop asks for the current list before
 * every model call, so a tool added by one round is offered in the next.
 */
import type { AnyTool } from './tool.ts';

/**
 * Tools that can change between rounds. Put one in `tools` next to plain tools. A source never
 * stops a run: a tool of it whose name is taken (by a plain tool or an earlier source) is left out,
 * and a source that fails to list offers nothing that round; each is said once per run in a
 * `warning` event (`setting: 'tools'`).
 *
 * @example
 * ```ts
 * let extra: AnyTool[] = [];
 * const source: ToolSource = { currentTools: () => extra };
 * await engine.chat({ prompt: 'hi', tools: [weather, source] });
 * ```
 */
export interface ToolSource {
  /** The tools as they are now; asked before every model call of a run. May wait for a refresh under way. */
  currentTools(): readonly AnyTool[] | Promise<readonly AnyTool[]>;
}

/**
 * Whether a value is a ToolSource (an object with `currentTools()`).
 *
 * @example
 * ```ts
 * isToolSource({ currentTools: () => [] }); // true
 * ```
 */
export function isToolSource(value: unknown): value is ToolSource {
  return typeof value === 'object' && value !== null && typeof (value as ToolSource).currentTools === 'function';
}
