/**
 * The providers' rules for a request, one table per dialect (issue 14). Each rule says where it
 * is documented (the published request schema, the API reference, or, where a provider states
 * it only in prose or in its error messages, the sentence and its URL), and checks an encoded
 * body: it returns the broken places as readable strings, empty when the body keeps the rule.
 *
 * rule-table.test.ts runs each rule on a request that would break it (the encoder must repair
 * it) and runs generated threads (fast-check) through the whole table of every dialect.
 */
import type { ModelRequest } from '@parlance/protocol';
import { getDialect } from '../src/registry.ts';
import type { DialectId } from '../src/types.ts';
import { ruleViolations, schemaErrors } from './handoff-rules.ts';
import { GOOGLE_SCHEMA } from './schemas.ts';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

type Json = Record<string, any>;

export interface Rule {
  id: string;
  /** Where the rule is documented. */
  source: string;
  /** The provider's own sentence, where the rule is only stated in prose or in an error message. */
  quote?: string;
  check(body: Json, request: ModelRequest): string[];
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Every object schema in `schema` (nested through properties, items, anyOf, $defs). */
function objectSchemas(schema: unknown, path = ''): { path: string; node: Json }[] {
  if (!isObject(schema)) return [];
  const out: { path: string; node: Json }[] = [];
  const type = schema.type;
  if (type === 'object' || (Array.isArray(type) && type.includes('object')) || isObject(schema.properties)) out.push({ path: path || '/', node: schema });
  for (const key of ['properties', '$defs', 'definitions']) {
    if (isObject(schema[key])) for (const [k, v] of Object.entries(schema[key])) out.push(...objectSchemas(v, `${path}/${key}/${k}`));
  }
  for (const key of ['items', 'anyOf', 'oneOf', 'prefixItems']) {
    const value = schema[key];
    if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) out.push(...objectSchemas(v, `${path}/${key}/${i}`));
    }
    else out.push(...objectSchemas(value, `${path}/${key}`));
  }
  return out;
}

/** OpenAI strict mode: closed objects, every property required. */
function strictSchemaProblems(schema: unknown, where: string): string[] {
  return objectSchemas(schema).flatMap(({ path, node }) => {
    const problems: string[] = [];
    if (node.additionalProperties !== false) problems.push(`${where}${path}: additionalProperties is not false`);
    const props = Object.keys(isObject(node.properties) ? node.properties : {});
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const missing = props.filter((p) => !required.has(p));
    if (missing.length) problems.push(`${where}${path}: properties ${missing} are not required`);
    return problems;
  });
}

/** The pairing / id / alternation checks of handoff-rules.ts, as one rule. */
const pairing = (target: DialectId, source: string): Rule => ({
  id: 'tool-pairing',
  source,
  check: (body) => ruleViolations(target, body),
});

const schema = (target: DialectId, source: string): Rule => ({
  id: 'published-schema',
  source,
  check: (body) => {
    const errors = schemaErrors(target, body);
    return errors === '' ? [] : [errors];
  },
});

const COMPLETIONS: Rule[] = [
  schema('openai_completions', 'test/api-schemas/openai__openai-openapi__openapi.json#/components/schemas/CreateChatCompletionRequest'),
  pairing('openai_completions', 'https://platform.openai.com/docs/guides/function-calling'),
  {
    id: 'tool-choice-needs-tools',
    source: 'ChatCompletionToolChoiceOption in the OpenAPI document',
    quote: '`none` is the default when no tools are present.',
    check: (body) => (body.tool_choice !== undefined && !body.tools?.length ? ['tool_choice without tools'] : []),
  },
  {
    id: 'strict-schemas',
    source: 'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas',
    check: (body) => [
      ...(body.response_format?.json_schema?.strict === true ? strictSchemaProblems(body.response_format.json_schema.schema, 'response_format') : []),
      ...((body.tools ?? []) as Json[]).flatMap((t, i) => (t.function?.strict === true ? strictSchemaProblems(t.function.parameters, `tools[${i}]`) : [])),
    ],
  },
];

const RESPONSES: Rule[] = [
  schema('openai_responses', 'test/api-schemas/openai__openai-openapi__openapi.json#/components/schemas/CreateResponse'),
  pairing('openai_responses', 'https://platform.openai.com/docs/guides/function-calling?api-mode=responses'),
  {
    id: 'reasoning-followed-by-its-item',
    source: 'https://platform.openai.com/docs/guides/reasoning#keeping-reasoning-items-in-context (error message)',
    quote: "Item 'rs_…' was provided without its required following item",
    check: (body) =>
      (body.input as Json[]).flatMap((item, i) => {
        if (item.type !== 'reasoning') return [];
        const next = (body.input as Json[])[i + 1];
        const ok = next && (next.type === 'reasoning' || (next.type === 'message' && next.role === 'assistant') || /_call$/.test(next.type));
        return ok ? [] : [`input[${i}]: reasoning item followed by ${next ? `${next.type}/${next.role}` : 'nothing'}`];
      }),
  },
  {
    id: 'reasoning-replayable',
    source: 'https://platform.openai.com/docs/guides/reasoning#encrypted-reasoning-items (with `store: false` a reasoning item is only usable with its `encrypted_content`)',
    check: (body) =>
      (body.input as Json[]).flatMap((item, i) =>
        item.type === 'reasoning' && typeof item.encrypted_content !== 'string' && !(Array.isArray(item.content) && item.content.length) ? [`input[${i}]: reasoning item with neither encrypted_content nor content`] : [],
      ),
  },
  {
    id: 'tool-choice-needs-tools',
    source: 'https://platform.openai.com/docs/api-reference/responses/create#responses-create-tool_choice',
    check: (body) => (body.tool_choice !== undefined && !body.tools?.length ? ['tool_choice without tools'] : []),
  },
  {
    id: 'strict-schemas',
    source: 'https://platform.openai.com/docs/guides/structured-outputs#supported-schemas',
    check: (body) => [
      ...(body.text?.format?.strict === true ? strictSchemaProblems(body.text.format.schema, 'text.format') : []),
      ...((body.tools ?? []) as Json[]).flatMap((t, i) => (t.strict === true ? strictSchemaProblems(t.parameters, `tools[${i}]`) : [])),
    ],
  },
];

const anthropicTurns = (body: Json) => body.messages as { role: string; content: Json[] }[];
const lastAssistant = (body: Json) => [...anthropicTurns(body)].reverse().find((t) => t.role === 'assistant');
const thinkingOn = (body: Json) => body.thinking?.type === 'enabled';

const ANTHROPIC: Rule[] = [
  schema('anthropic_messages', 'test/api-schemas/anthropic__lingua__openapi.yml#/components/schemas/CreateMessageParams'),
  pairing('anthropic_messages', 'https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use'),
  {
    id: 'at-least-one-message',
    source: 'CreateMessageParams.messages in the OpenAPI document',
    quote: 'You can specify a single `user`-role message, or you can include multiple `user` and `assistant` messages.',
    check: (body) => (anthropicTurns(body).length === 0 ? ['no messages'] : []),
  },
  {
    id: 'non-whitespace-text',
    source: 'the API\'s error message, e.g. https://github.com/anthropics/claude-code/issues/23440',
    quote: 'messages: text content blocks must contain non-whitespace text',
    check: (body) =>
      anthropicTurns(body).flatMap((turn, i) =>
        turn.content.flatMap((block, j) => (block.type === 'text' && String(block.text).trim() === '' ? [`messages[${i}].content[${j}]: whitespace-only text`] : [])),
      ),
  },
  {
    id: 'prefill-without-trailing-whitespace',
    source: "the API's error message",
    quote: 'final assistant content cannot end with trailing whitespace',
    check: (body) => {
      const turns = anthropicTurns(body);
      const last = turns[turns.length - 1];
      const block = last?.role === 'assistant' ? last.content[last.content.length - 1] : undefined;
      return block?.type === 'text' && /\s$/.test(block.text) ? ['the final assistant text ends in whitespace'] : [];
    },
  },
  {
    id: 'thinking-signed',
    source: 'https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#thinking-encryption (thinking blocks go back with their `signature`; unsigned reasoning cannot be a thinking block)',
    check: (body) =>
      anthropicTurns(body).flatMap((turn, i) =>
        turn.content.flatMap((block, j) => (block.type === 'thinking' && (typeof block.signature !== 'string' || block.signature === '') ? [`messages[${i}].content[${j}]: unsigned thinking block`] : [])),
      ),
  },
  {
    id: 'thinking-first-in-tool-turn',
    source: "https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking#extended-thinking-with-tool-use (the API's error message)",
    quote: 'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks).',
    check: (body) => {
      const turn = lastAssistant(body);
      if (!thinkingOn(body) || !turn?.content.some((b) => b.type === 'tool_use')) return [];
      return ['thinking', 'redacted_thinking'].includes(turn.content[0]?.type) ? [] : ['thinking on, last assistant tool turn starts without thinking'];
    },
  },
  {
    id: 'thinking-without-forced-tool',
    source: 'https://platform.claude.com/docs/en/build-with-claude/extended-thinking (Feature compatibility)',
    quote: "Thinking isn't compatible with temperature or top_k modifications as well as forced tool use.",
    check: (body) => (thinkingOn(body) && ['any', 'tool'].includes(body.tool_choice?.type) ? [`thinking with tool_choice ${body.tool_choice.type}`] : []),
  },
  {
    id: 'thinking-sampling',
    source: 'https://platform.claude.com/docs/en/build-with-claude/extended-thinking (Feature compatibility)',
    quote: "Thinking isn't compatible with temperature or top_k modifications as well as forced tool use. When thinking is enabled, you can set top_p to values between 1 and 0.95.",
    check: (body) => {
      if (!thinkingOn(body)) return [];
      const problems: string[] = [];
      if (body.temperature !== undefined) problems.push('temperature with thinking');
      if (body.top_p !== undefined && body.top_p < 0.95) problems.push('top_p under 0.95 with thinking');
      return problems;
    },
  },
  {
    id: 'budget-below-max-tokens',
    source: 'ThinkingConfigEnabled.budget_tokens in the OpenAPI document',
    quote: 'Must be ≥1024 and less than `max_tokens`.',
    check: (body) => (thinkingOn(body) && !(body.thinking.budget_tokens >= 1024 && body.thinking.budget_tokens < body.max_tokens) ? ['budget_tokens out of range'] : []),
  },
  {
    id: 'tool-choice-needs-tools',
    source: 'https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use',
    check: (body) => (body.tool_choice !== undefined && !body.tools?.length ? ['tool_choice without tools'] : []),
  },
  {
    id: 'closed-output-schema',
    source: 'https://docs.anthropic.com/en/docs/build-with-claude/structured-outputs (objects must be closed: `additionalProperties: false`)',
    check: (body) => {
      const problems = objectSchemas(body.output_config?.format?.schema).filter(({ node }) => node.additionalProperties !== false);
      return problems.map(({ path }) => `output_config.format.schema${path}: not closed`);
    },
  },
  {
    id: 'compaction-beta-header',
    source: 'https://docs.anthropic.com/en/docs/build-with-claude/compaction (beta `compact-2026-01-12`; the edit type is `compact_20260112` in BetaContextManagementConfig)',
    check: (body) => {
      const has = anthropicTurns(body).some((t) => t.content.some((b) => b.type === 'compaction'));
      const header = getDialect('anthropic_messages').requestHeaders?.(body)['anthropic-beta'] ?? '';
      return has && !header.includes('compact-2026-01-12') ? ['compaction block without the compaction beta header'] : [];
    },
  },
];

const THINKING_LEVELS: string[] = (() => {
  const doc = JSON.parse(readFileSync(join(import.meta.dirname, 'api-schemas', GOOGLE_SCHEMA), 'utf8'));
  return doc.schemas.ThinkingConfig.properties.thinkingLevel.enum;
})();

const GEMINI: Rule[] = [
  schema('google_gemini', 'test/api-schemas/google__lingua__discovery.json#GenerateContentRequest'),
  pairing('google_gemini', 'https://ai.google.dev/gemini-api/docs/function-calling'),
  {
    id: 'responses-equal-calls',
    source: "the API's error message, e.g. https://github.com/google-gemini/gemini-cli/issues/4217",
    quote: 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
    check: (body) =>
      (body.contents as Json[]).flatMap((content, i) => {
        const calls = (content.parts as Json[]).filter((p) => p.functionCall).length;
        if (content.role !== 'model' || calls === 0) return [];
        const next = (body.contents as Json[])[i + 1];
        const responses = next ? (next.parts as Json[]).filter((p) => p.functionResponse).length : 0;
        return responses === calls ? [] : [`contents[${i}]: ${calls} calls, ${responses} responses`];
      }),
  },
  {
    id: 'contents-not-empty',
    source: 'GenerateContentRequest.contents in the discovery document',
    quote: 'Required. The content of the current conversation with the model.',
    check: (body) => ((body.contents as Json[]).length === 0 ? ['empty contents'] : []),
  },
  {
    id: 'thinking-level-enum',
    source: 'ThinkingConfig.thinkingLevel in test/api-schemas/google__lingua__discovery.json',
    check: (body) => {
      const level = body.generationConfig?.thinkingConfig?.thinkingLevel;
      return level === undefined || THINKING_LEVELS.includes(level) ? [] : [`thinkingLevel ${level} is not one of ${THINKING_LEVELS}`];
    },
  },
  {
    id: 'gemini-3-call-signatures',
    source: 'https://ai.google.dev/gemini-api/docs/thought-signatures (the first function call part of each step carries the signature; a call without one gets the documented dummy `skip_thought_signature_validator`)',
    check: (body, request) =>
      /gemini-3/.test(request.model)
        ? (body.contents as Json[]).flatMap((content, i) => {
            const first = (content.parts as Json[]).find((p) => p.functionCall);
            return first && typeof first.thoughtSignature !== 'string' ? [`contents[${i}]: first functionCall without thoughtSignature`] : [];
          })
        : [],
  },
  {
    id: 'tool-config-needs-tools',
    source: 'https://ai.google.dev/api/caching#ToolConfig',
    check: (body) => (body.toolConfig !== undefined && !body.tools?.length ? ['toolConfig without tools'] : []),
  },
];

const OLLAMA: Rule[] = [
  schema('ollama_chat', 'test/api-schemas/ollama__ollama__openapi.yaml#/components/schemas/ChatRequest'),
  pairing('ollama_chat', 'https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools'),
  {
    id: 'results-right-after-calls',
    source: 'https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools (the example history: assistant `tool_calls`, then the `tool` message, then the next user message)',
    check: (body) =>
      (body.messages as Json[]).flatMap((m, i) => {
        if (m.role !== 'user' || i === 0) return [];
        // A user message right after an assistant with calls means the results came after the text.
        const prev = (body.messages as Json[])[i - 1]!;
        return prev.role === 'assistant' && prev.tool_calls?.length ? [`messages[${i}]: user text between calls and their results`] : [];
      }),
  },
];

export const RULE_TABLE: Record<DialectId, Rule[]> = {
  openai_completions: COMPLETIONS,
  openai_responses: RESPONSES,
  anthropic_messages: ANTHROPIC,
  google_gemini: GEMINI,
  ollama_chat: OLLAMA,
};

/** Every rule of the dialect's table the body breaks, as `rule-id: problem`. */
export function tableViolations(target: DialectId, body: Json, request: ModelRequest): string[] {
  return RULE_TABLE[target].flatMap((rule) => rule.check(body, request).map((p) => `${rule.id}: ${p}`));
}
