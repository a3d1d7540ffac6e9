/**
 * Structured output: ask the model for JSON matching a schema, show the object as it
 * streams, validate the final one.
 *
 * Dialects with a native strict JSON Schema mode get `ModelRequest.output`:
 * - OpenAI Chat Completions `response_format: json_schema`: https://platform.openai.com/docs/guides/structured-outputs
 * - OpenAI Responses `text.format`: https://platform.openai.com/docs/api-reference/responses/create
 * - Gemini `responseJsonSchema`: https://ai.google.dev/gemini-api/docs/structured-output
 * - Ollama `format: <schema>`: https://docs.ollama.com/capabilities/structured-outputs
 * Anthropic Messages gets a forced tool whose input is the object
 * (https://docs.anthropic.com/en/docs/build-with-claude/tool-use#forcing-claude-to-use-a-tool):
 * it works on every Claude model, where Anthropic's own structured-output mode
 * (`output_config.format`) is limited to some models. With thinking on, Anthropic rejects a
 * forced tool ("Thinking may not be enabled when tool_choice forces tool use"), so a request
 * with thinking uses the native output format instead and keeps thinking on
 * (https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs). `outputMode: 'tool'`
 * with thinking still forces the tool: the dialect then turns thinking off for that request
 * and reports it as a `warning` event.
 */
import { Allow, parse as parsePartial } from 'partial-json';
import type { ModelRequest, ThinkingSetting } from '@parlance/protocol';
import type { ResolvedSchema } from '../tools/schema.ts';

/**
 * How structured output is asked for: the API's native JSON Schema mode, or a forced tool.
 *
 * @example
 * createEngine({ outputMode: 'tool' });
 */
export type OutputMode = 'native' | 'tool';

/**
 * The dialects whose APIs take a JSON Schema for the answer itself (native structured output).
 *
 * @example
 * NATIVE_OUTPUT_DIALECTS.has('openai_responses'); // true
 */
export const NATIVE_OUTPUT_DIALECTS: ReadonlySet<string> = new Set([
  'openai_completions',
  'openai_responses',
  'google_gemini',
  'ollama_chat',
]);

/**
 * The name of the forced tool in tool mode.
 *
 * @example
 * const forced = request.tools?.find((t) => t.name === OUTPUT_TOOL_NAME);
 */
export const OUTPUT_TOOL_NAME = 'structured_output';

/**
 * How structured output is asked for: the model's native JSON Schema output, or a forced tool
 * (Anthropic without thinking; see the file comment).
 *
 * @example
 * pickOutputMode('auto', 'anthropic_messages'); // 'tool'
 * pickOutputMode('auto', 'anthropic_messages', { effort: 'low' }); // 'native': thinking rejects a forced tool
 */
export function pickOutputMode(setting: 'auto' | 'native' | 'tool' | undefined, dialect: string, thinking?: ThinkingSetting): OutputMode {
  if (setting === 'native' || setting === 'tool') return setting;
  // Unknown dialects (fakes, remote engines) are trusted to honour `output`.
  if (dialect !== 'anthropic_messages') return 'native';
  return thinking !== undefined && thinking !== false ? 'native' : 'tool';
}

export function applyOutput(request: Omit<ModelRequest, 'model'>, schema: ResolvedSchema, mode: OutputMode): Omit<ModelRequest, 'model'> {
  if (mode === 'native') return { ...request, output: { type: 'json', schema: schema.jsonSchema, name: 'output' } };
  const tools = [
    ...(request.tools ?? []),
    { name: OUTPUT_TOOL_NAME, description: 'Give the final answer as this tool\'s input.', inputSchema: schema.jsonSchema },
  ];
  // With other tools present the model must be free to call them first.
  const toolChoice = request.tools?.length ? 'required' : { type: 'tool' as const, name: OUTPUT_TOOL_NAME };
  return { ...request, tools, toolChoice };
}

/** Strips a Markdown code fence some models wrap JSON in even in JSON mode. */
function unfence(text: string): string {
  const trimmed = text.trim();
  const match = /^```[a-zA-Z]*\s*\n?([\s\S]*?)(?:\n?```\s*)?$/.exec(trimmed);
  return match ? match[1]! : trimmed;
}

export function parseOutputText(text: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(unfence(text)) };
  } catch (error) {
    return { ok: false, message: `The answer is not valid JSON (${error instanceof Error ? error.message : String(error)})` };
  }
}

export type PartialParseResult = { changed: true; value: unknown } | { changed: false };

export interface PartialObjectParserOptions {
  /** The tolerant parser (partial-json with every partial type allowed, by default). Injectable so tests can count parses. */
  parse?: (text: string) => unknown;
  /** Parse again once the text grew by at least this many characters since the last parse (default 64)... */
  minGrowth?: number;
  /** ...or by this fraction of the text's length at the last parse, whichever is larger (default 0.1). */
  growthRatio?: number;
}

export interface PartialObjectParser {
  /** Adds a delta; parses only when the rule below says so. */
  push(delta: string): PartialParseResult;
  /** Parses whatever arrived since the last parse (call it at the end of the response). */
  flush(): PartialParseResult;
  /** How many times the text was parsed so far. */
  readonly parses: number;
}

export const PARTIAL_MIN_GROWTH = 64;
export const PARTIAL_GROWTH_RATIO = 0.1;

const partialJson = (text: string): unknown => parsePartial(text, Allow.ALL);

/**
 * Tolerant parsing of the JSON received so far (partial-json: strings, numbers,
 * arrays and objects may be cut anywhere). Returns a new object only when it
 * changed, so `object-delta` events are not repeated per whitespace delta.
 *
 * Parsing the whole text on every delta is quadratic (a 100 KB object in 20,000
 * deltas would parse ~1 GB of text), so the rule is deterministic and geometric:
 * - the first delta is parsed at once, so the first partial object shows without delay;
 * - after that, the text is parsed again only once it grew by at least
 *   max(minGrowth, growthRatio x its length at the last parse) characters;
 * - `flush()` parses what is left at the end of the response.
 * Each parse is at least 1.1x longer than the one before (past the first 640
 * characters), so the total text parsed is at most ~11x the output's length: O(n),
 * with O(log n) parses. The price: on a long output the partial object refreshes
 * less often (every 10 KB at 100 KB); the final object is always exact.
 */
export function createPartialObjectParser(options: PartialObjectParserOptions = {}): PartialObjectParser {
  const parse = options.parse ?? partialJson;
  const minGrowth = options.minGrowth ?? PARTIAL_MIN_GROWTH;
  const ratio = options.growthRatio ?? PARTIAL_GROWTH_RATIO;
  let text = '';
  /** The text's length at the last parse (-1: never parsed). */
  let parsedAt = -1;
  let last = '';
  let parses = 0;
  const run = (): PartialParseResult => {
    parsedAt = text.length;
    parses++;
    let value: unknown;
    try {
      value = parse(unfence(text));
    } catch {
      return { changed: false };
    }
    if (value === undefined) return { changed: false };
    const key = JSON.stringify(value);
    if (key === last) return { changed: false };
    last = key;
    return { changed: true, value };
  };
  return {
    push(delta) {
      text += delta;
      if (parsedAt < 0) return run();
      return text.length - parsedAt >= Math.max(minGrowth, ratio * parsedAt) ? run() : { changed: false };
    },
    flush() {
      return parsedAt === text.length ? { changed: false } : run();
    },
    get parses() {
      return parses;
    },
  };
}

export function retryMessage(problem: string): string {
  return `Your answer did not match the required JSON schema: ${problem}. Answer again with only JSON that matches the schema.`;
}
