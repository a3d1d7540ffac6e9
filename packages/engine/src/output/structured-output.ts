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
 * it works on every Claude model, where Anthropic's own structured-output mode is
 * still a beta limited to some models.
 */
import { Allow, parse as parsePartial } from 'partial-json';
import type { ModelRequest } from '@parlance/protocol';
import type { ResolvedSchema } from '../tools/schema.ts';

export type OutputMode = 'native' | 'tool';

export const NATIVE_OUTPUT_DIALECTS: ReadonlySet<string> = new Set([
  'openai_completions',
  'openai_responses',
  'google_gemini',
  'ollama_chat',
]);

/** The name of the forced tool in tool mode. */
export const OUTPUT_TOOL_NAME = 'structured_output';

export function pickOutputMode(setting: 'auto' | 'native' | 'tool' | undefined, dialect: string): OutputMode {
  if (setting === 'native' || setting === 'tool') return setting;
  // Unknown dialects (fakes, remote engines) are trusted to honour `output`.
  return dialect === 'anthropic_messages' ? 'tool' : 'native';
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

/**
 * Tolerant parsing of the JSON received so far (partial-json: strings, numbers,
 * arrays and objects may be cut anywhere). Returns a new object only when it
 * changed, so `object-delta` events are not repeated per whitespace delta.
 */
export function createPartialObjectParser(): (delta: string) => { changed: true; value: unknown } | { changed: false } {
  let text = '';
  let last = '';
  return (delta) => {
    text += delta;
    let value: unknown;
    try {
      value = parsePartial(unfence(text), Allow.ALL);
    } catch {
      return { changed: false };
    }
    if (value === undefined) return { changed: false };
    const key = JSON.stringify(value);
    if (key === last) return { changed: false };
    last = key;
    return { changed: true, value };
  };
}

export function retryMessage(problem: string): string {
  return `Your answer did not match the required JSON schema: ${problem}. Answer again with only JSON that matches the schema.`;
}
