/**
 * `tool()`: a name, a description, an input schema and, for a server tool, a handler.
 * A tool without `execute` is a client tool: the loop halts and the caller (or the
 * browser) supplies its result.
 */
import { ParlanceError, type JSONSchema, type Message, type ToolDefinition } from '@parlance/protocol';
import { resolveSchema, type InferSchemaOutput, type ResolvedSchema, type SchemaLike } from './schema.ts';

/**
 * What `execute` gets beside the input: the call id, an abort signal, the history, and `askUser`.
 *
 * @example
 * execute: async ({ city }, { signal }) => (await fetch(`https://wttr.in/${city}?format=j1`, { signal })).json()
 */
export interface ToolContext {
  toolCallId: string;
  /** Aborts when the run is cancelled or the tool's timeout passes. */
  signal: AbortSignal;
  /** The history the model saw when it asked for this call. */
  messages: readonly Message[];
  /**
   * Halts the run with `ask-user`; the user's answer becomes this call's result.
   * The handler does not resume (a run may continue in another process), so the
   * returned promise never resolves: code after `await askUser(...)` does not run.
   */
  askUser(question: string): Promise<never>;
}

/**
 * Whether a call waits for the user's approval: always, never, or decided per input.
 *
 * @example
 * tool({ name: 'transfer', input, needsApproval: ({ amount }) => amount > 100, execute });
 */
export type NeedsApproval<I> = boolean | ((input: I, context: { toolCallId: string }) => boolean | Promise<boolean>);

/**
 * What `tool()` takes: name, description, input schema, `execute`, and whether it needs approval, with a timeout.
 *
 * @example
 * const config: ToolConfig<typeof input, string> = { name: 'echo', input, execute: async ({ text }) => text };
 */
export interface ToolConfig<S extends SchemaLike, R> {
  /** The name the model calls (letters, digits, `_` and `-`, at most 64). */
  name: string;
  description?: string;
  /** A Standard Schema (zod, valibot, arktype) or a plain JSON Schema object. */
  input: S;
  /** JSON Schema for the wire, when `input` cannot produce one (valibot without its converter). */
  jsonSchema?: JSONSchema;
  /** The handler. Leave it out for a client tool. */
  execute?: (input: InferSchemaOutput<S>, context: ToolContext) => R | Promise<R>;
  needsApproval?: NeedsApproval<InferSchemaOutput<S>>;
  /** Per-call timeout (default: the run's `toolTimeoutMs`). */
  timeoutMs?: number;
  /**
   * Running this call twice does no harm, because the handler keys its effect by `toolCallId` (an
   * idempotency key). A run continued on another server after its process stopped mid-call runs such
   * a call again with the same id; any other tool gets the error result `INTERRUPTED_RESULT`
   * ("interrupted: not run again"), since whether it took effect is unknown. Default false.
   */
  idempotent?: boolean;
  /** Ask the provider for strict argument adherence where it supports it. */
  strict?: boolean;
  /**
   * More attributes for the call's `execute_tool` span, read when the call starts (an MCP tool adds
   * `mcp.method.name`, `mcp.session.id`, ...). Names should be the semantic conventions'.
   */
  spanAttributes?: () => Record<string, string | number | boolean>;
}

/**
 * A tool made by `tool()`: its definition for the model plus its validated `execute`.
 *
 * @example
 * const definitions = [weather, search].map((t: AnyTool) => t.definition);
 */
export interface Tool<S extends SchemaLike = SchemaLike, R = unknown> extends ToolConfig<S, R> {
  readonly definition: ToolDefinition;
  readonly schema: ResolvedSchema<InferSchemaOutput<S>>;
}

/** Any tool, whatever its schema: what the engine holds in a list. */
// Handlers of different tools take different inputs.
/**
 * Any tool, whatever its schema: what the engine holds in a list.
 *
 * @example
 * const tools: AnyTool[] = [weather, search];
 */
export type AnyTool = Tool<any, any>;

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A tool the model can call: a name, an input schema (any Standard Schema, or JSON Schema), and `execute`; `needsApproval` pauses the run for the user.
 *
 * @example
 * const weather = tool({
 *   name: 'weather',
 *   description: 'Current weather for a city',
 *   input: z.object({ city: z.string() }),
 *   needsApproval: true,
 *   execute: async ({ city }) => ({ city, temperatureC: 21 }),
 * });
 */
export function tool<S extends SchemaLike, R = unknown>(config: ToolConfig<S, R>): Tool<S, R> {
  if (typeof config.name !== 'string' || !NAME.test(config.name)) {
    throw new ParlanceError(
      'invalid_request',
      `Invalid tool name ${JSON.stringify(config.name)}: use 1 to 64 letters, digits, "_" or "-"`,
    );
  }
  const schema = resolveSchema(config.input, `tool "${config.name}"`, config.jsonSchema);
  const definition: ToolDefinition = { name: config.name, inputSchema: schema.jsonSchema };
  if (config.description !== undefined) definition.description = config.description;
  if (config.strict !== undefined) definition.strict = config.strict;
  return { ...config, definition, schema };
}

/**
 * Whether a value is a tool made with `tool()` (rather than a tool source).
 *
 * @example
 * const tools = items.filter(isTool);
 */
export function isTool(value: unknown): value is AnyTool {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AnyTool).name === 'string' &&
    typeof (value as AnyTool).definition === 'object' &&
    typeof (value as AnyTool).schema?.validate === 'function'
  );
}
