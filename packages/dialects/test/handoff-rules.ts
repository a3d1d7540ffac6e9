/**
 * What each target API documents about a continued thread, as checks on an encoded body.
 * Each check returns the broken rules as readable strings (empty when the body is fine),
 * so a failing handoff says which rule and where.
 *
 * - Schemas: the published request schema of each API (test/schemas.ts, SOURCES.md).
 * - Chat Completions: a `tool` message must answer a `tool_calls` id of the assistant
 *   message right before it (only `tool` messages in between), and every call must be
 *   answered: https://platform.openai.com/docs/guides/function-calling. OpenAI rejects ids
 *   over 40 characters (vercel/ai#8132).
 * - Responses: every `function_call_output` answers an earlier `function_call` with the same
 *   `call_id`, and every call has its output; item ids are unique:
 *   https://platform.openai.com/docs/guides/function-calling?api-mode=responses
 * - Anthropic: user/assistant alternation starting with user; each `tool_use` is answered by a
 *   `tool_result` at the start of the next user turn, and a `tool_result` answers only a
 *   `tool_use` of the previous assistant turn; ids `^[a-zA-Z0-9_-]+$`, max 64, unique:
 *   https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 * - Gemini: user/model turns alternate starting with user; the turn after a model turn with
 *   function calls is a user turn with as many function responses, matched by name (and id):
 *   https://ai.google.dev/gemini-api/docs/function-calling
 * - Ollama: a `tool` message answers (by `tool_name`) a call of the assistant message before it:
 *   https://github.com/ollama/ollama/blob/main/docs/api.md#chat-request-with-tools
 */
import type { Message, Part } from '@parlance/protocol';
import type { DialectId } from '../src/types.ts';
import { GOOGLE_SCHEMA, OPENAI_SCHEMA, validateAgainst, validateAgainstDiscovery } from './schemas.ts';

type Json = Record<string, any>;

/** Anthropic blocks only the beta schema knows (MCP connector, compaction): such a body is checked against it. */
const ANTHROPIC_BETA_BLOCKS = /"type":"(mcp_tool_use|mcp_tool_result|compaction)"/;

export function schemaErrors(target: DialectId, body: unknown): string {
  switch (target) {
    case 'openai_completions':
      return validateAgainst(OPENAI_SCHEMA, '/components/schemas/CreateChatCompletionRequest', body);
    case 'openai_responses':
      return validateAgainst(OPENAI_SCHEMA, '/components/schemas/CreateResponse', body);
    case 'anthropic_messages': {
      const beta = ANTHROPIC_BETA_BLOCKS.test(JSON.stringify(body));
      return validateAgainst('anthropic__lingua__openapi.yml', `/components/schemas/${beta ? 'Beta' : ''}CreateMessageParams`, body);
    }
    case 'google_gemini':
      return validateAgainstDiscovery(GOOGLE_SCHEMA, 'GenerateContentRequest', body);
    case 'ollama_chat':
      return validateAgainst('ollama__ollama__openapi.yaml', '/components/schemas/ChatRequest', body);
  }
}

const sameSet = (a: readonly unknown[], b: readonly unknown[]) =>
  a.length === b.length && [...a].sort().join('\u0000') === [...b].sort().join('\u0000');

function completionsRules(body: Json): string[] {
  const problems: string[] = [];
  const messages = body.messages as Json[];
  const seen = new Set<string>();
  messages.forEach((message, i) => {
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      const ids = message.tool_calls.map((c: Json) => c.id as string);
      for (const id of ids) {
        if (typeof id !== 'string' || id === '' || id.length > 40) problems.push(`messages[${i}]: tool call id ${JSON.stringify(id)} is not 1..40 characters`);
        if (seen.has(id)) problems.push(`messages[${i}]: tool call id ${id} is used twice`);
        seen.add(id);
      }
      const answered: string[] = [];
      for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) answered.push(messages[j]!.tool_call_id);
      if (!sameSet(ids, answered)) problems.push(`messages[${i}]: calls ${ids} are answered by ${answered}`);
    }
    if (message.role === 'tool') {
      let k = i - 1;
      while (k >= 0 && messages[k]!.role === 'tool') k--;
      const owner = messages[k];
      const ids = owner?.role === 'assistant' ? ((owner.tool_calls ?? []) as Json[]).map((c) => c.id) : [];
      if (!ids.includes(message.tool_call_id)) problems.push(`messages[${i}]: orphaned tool result ${message.tool_call_id}`);
    }
  });
  return problems;
}

function responsesRules(body: Json): string[] {
  const problems: string[] = [];
  const input = body.input as Json[];
  const calls = new Set<string>();
  const outputs = new Set<string>();
  const itemIds = new Set<string>();
  input.forEach((item, i) => {
    if (typeof item.id === 'string') {
      if (itemIds.has(item.id)) problems.push(`input[${i}]: item id ${item.id} is used twice`);
      itemIds.add(item.id);
    }
    if (item.type === 'function_call') {
      const id = item.call_id;
      if (typeof id !== 'string' || !/^[A-Za-z0-9_.:-]{1,64}$/.test(id)) problems.push(`input[${i}]: call_id ${JSON.stringify(id)} is not a valid id`);
      if (calls.has(id)) problems.push(`input[${i}]: call_id ${id} is used twice`);
      calls.add(id);
    }
    if (item.type === 'function_call_output') {
      if (!calls.has(item.call_id)) problems.push(`input[${i}]: orphaned function_call_output ${item.call_id}`);
      outputs.add(item.call_id);
    }
  });
  for (const id of calls) if (!outputs.has(id)) problems.push(`function_call ${id} has no output`);
  return problems;
}

function anthropicRules(body: Json): string[] {
  const problems: string[] = [];
  const turns = body.messages as Json[];
  const seen = new Set<string>();
  turns.forEach((turn, i) => {
    const expected = i % 2 === 0 ? 'user' : 'assistant';
    if (turn.role !== expected) problems.push(`messages[${i}]: role ${turn.role}, expected ${expected} (alternation)`);
    const content = (Array.isArray(turn.content) ? turn.content : []) as Json[];
    if (turn.role === 'assistant') {
      const ids = content.filter((b) => b.type === 'tool_use').map((b) => b.id as string);
      for (const id of ids) {
        if (typeof id !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(id)) problems.push(`messages[${i}]: tool_use id ${JSON.stringify(id)} is invalid`);
        if (seen.has(id)) problems.push(`messages[${i}]: tool_use id ${id} is used twice`);
        seen.add(id);
      }
      if (ids.length === 0) return;
      const next = turns[i + 1];
      const nextContent = (Array.isArray(next?.content) ? next.content : []) as Json[];
      const leading: string[] = [];
      for (const block of nextContent) {
        if (block.type !== 'tool_result') break;
        leading.push(block.tool_use_id);
      }
      if (next?.role !== 'user' || !sameSet(ids, leading)) problems.push(`messages[${i}]: tool_use ${ids} answered by leading results ${leading}`);
    } else {
      const previous = turns[i - 1];
      const calls = ((Array.isArray(previous?.content) ? previous.content : []) as Json[]).filter((b) => b.type === 'tool_use').map((b) => b.id);
      content.forEach((block, j) => {
        if (block.type === 'tool_result' && !calls.includes(block.tool_use_id)) problems.push(`messages[${i}].content[${j}]: orphaned tool_result ${block.tool_use_id}`);
      });
    }
  });
  if (turns.some((t) => Array.isArray(t.content) && t.content.some((b: Json) => b.type === 'tool_use')) && !body.tools?.length) {
    problems.push('tool_use blocks without tool definitions');
  }
  return problems;
}

function geminiRules(body: Json): string[] {
  const problems: string[] = [];
  const contents = body.contents as Json[];
  contents.forEach((content, i) => {
    const expected = i % 2 === 0 ? 'user' : 'model';
    if (content.role !== expected) problems.push(`contents[${i}]: role ${content.role}, expected ${expected} (alternation)`);
    const parts = content.parts as Json[];
    if (content.role === 'model') {
      const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall as Json);
      if (calls.length === 0) return;
      const next = contents[i + 1];
      const responses = next?.role === 'user' ? (next.parts as Json[]).filter((p) => p.functionResponse).map((p) => p.functionResponse as Json) : [];
      if (!sameSet(calls.map((c) => c.name), responses.map((r) => r.name))) {
        problems.push(`contents[${i}]: calls ${calls.map((c) => c.name)} answered by ${responses.map((r) => r.name)}`);
      }
      const callIds = calls.flatMap((c) => (c.id === undefined ? [] : [c.id]));
      const responseIds = responses.flatMap((r) => (r.id === undefined ? [] : [r.id]));
      if (!sameSet(callIds, responseIds)) problems.push(`contents[${i}]: call ids ${callIds} answered by ${responseIds}`);
    } else {
      const previous = contents[i - 1];
      const names = previous?.role === 'model' ? (previous.parts as Json[]).filter((p) => p.functionCall).map((p) => p.functionCall.name) : [];
      parts.forEach((part, j) => {
        if (part.functionResponse && !names.includes(part.functionResponse.name)) problems.push(`contents[${i}].parts[${j}]: orphaned functionResponse ${part.functionResponse.name}`);
      });
    }
  });
  return problems;
}

function ollamaRules(body: Json): string[] {
  const problems: string[] = [];
  const messages = body.messages as Json[];
  messages.forEach((message, i) => {
    if (message.role === 'assistant' && Array.isArray(message.tool_calls)) {
      const names = message.tool_calls.map((c: Json) => c.function?.name);
      const answered: string[] = [];
      for (let j = i + 1; j < messages.length && messages[j]!.role === 'tool'; j++) answered.push(messages[j]!.tool_name);
      if (!sameSet(names, answered)) problems.push(`messages[${i}]: calls ${names} answered by ${answered}`);
    }
    if (message.role === 'tool') {
      let k = i - 1;
      while (k >= 0 && messages[k]!.role === 'tool') k--;
      const owner = messages[k];
      const names = owner?.role === 'assistant' ? ((owner.tool_calls ?? []) as Json[]).map((c) => c.function?.name) : [];
      if (!names.includes(message.tool_name)) problems.push(`messages[${i}]: orphaned tool result for ${message.tool_name}`);
    }
  });
  return problems;
}

/** Pairing, id and alternation rules of the target (schema validation is separate). */
export function ruleViolations(target: DialectId, body: Json): string[] {
  switch (target) {
    case 'openai_completions':
      return completionsRules(body);
    case 'openai_responses':
      return responsesRules(body);
    case 'anthropic_messages':
      return anthropicRules(body);
    case 'google_gemini':
      return geminiRules(body);
    case 'ollama_chat':
      return ollamaRules(body);
  }
}

/** Keys under which dialects keep opaque round-trip tokens (signatures, encrypted reasoning, item ids). */
const OPAQUE_KEYS = new Set(['signature', 'encryptedContent', 'thoughtSignature', 'redactedData', 'itemId', 'data']);

function collectOpaque(value: unknown, out: Set<string>, key?: string): void {
  if (typeof value === 'string') {
    if (key !== undefined && OPAQUE_KEYS.has(key) && value.length >= 8) out.add(value);
  } else if (Array.isArray(value)) {
    for (const item of value) collectOpaque(item, out, key);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) collectOpaque(v, out, k);
  }
}

/** The opaque provider tokens a thread carries for one dialect (what must never leak to another). */
export function opaqueTokens(messages: readonly Message[], dialect: DialectId): string[] {
  const out = new Set<string>();
  for (const message of messages)
    for (const part of message.parts) {
      collectOpaque(part.providerState?.[dialect], out);
      if (part.type === 'reasoning' && part.signature !== undefined && part.signature.length >= 8) out.add(part.signature);
    }
  return [...out];
}

/** Reasoning texts of a thread (what a foreign target must still carry, as text). */
export function reasoningTexts(messages: readonly Message[]): string[] {
  return messages.flatMap((m) => m.parts.filter((p): p is Extract<Part, { type: 'reasoning' }> => p.type === 'reasoning' && !p.redacted && p.text.trim() !== '').map((p) => p.text));
}

/** Fields through which a target replays its OWN reasoning state: none may appear for a foreign source. */
export function nativeReasoningReplay(target: DialectId, body: Json): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      value.forEach((v, i) => {
        walk(v, `${path}[${i}]`);
      });
    } else if (value !== null && typeof value === 'object') {
      const node = value as Json;
      if (target === 'anthropic_messages' && ['thinking', 'redacted_thinking', 'compaction'].includes(node.type)) found.push(`${path}: ${node.type} block`);
      if (target === 'openai_responses' && node.type === 'reasoning') found.push(`${path}: reasoning item`);
      if (target === 'openai_responses' && 'encrypted_content' in node) found.push(`${path}: encrypted_content`);
      if (target === 'google_gemini' && node.thought === true) found.push(`${path}: thought part`);
      if (target === 'google_gemini' && typeof node.thoughtSignature === 'string' && node.thoughtSignature !== 'skip_thought_signature_validator') {
        found.push(`${path}: thoughtSignature`);
      }
      if (target === 'openai_completions' && ('reasoning_details' in node || 'reasoning_content' in node)) found.push(`${path}: reasoning replay field`);
      for (const [k, v] of Object.entries(node)) walk(v, `${path}.${k}`);
    }
  };
  walk(body, '$');
  return found;
}
