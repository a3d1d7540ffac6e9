/**
 * Small body rewrites shared by Chat Completions vendors. The dialect encodes what
 * OpenAI documents; these move a field to the name or shape a vendor expects.
 */
import type { ModelContext } from './types.ts';

type Body = Record<string, unknown>;

/** `max_completion_tokens` -> `max_tokens`, for servers that only know the older name. */
export function useMaxTokens(body: Body): Body {
  if (body.max_completion_tokens === undefined) return body;
  const { max_completion_tokens, ...rest } = body;
  return rest.max_tokens === undefined ? { ...rest, max_tokens: max_completion_tokens } : rest;
}

/**
 * The `thinking: {type: 'enabled' | 'disabled'}` switch (Z.ai, Moonshot, DeepSeek) instead
 * of `reasoning_effort`, which these servers do not accept (or not as 'none').
 */
export function thinkingSwitch(body: Body, context: ModelContext, keepEffort: boolean): Body {
  const thinking = context.request.thinking;
  if (thinking === undefined || body.thinking !== undefined) return body;
  const { reasoning_effort, ...rest } = body;
  const out: Body = { ...rest, thinking: { type: thinking === false ? 'disabled' : 'enabled' } };
  if (keepEffort && thinking !== false && reasoning_effort !== undefined && reasoning_effort !== 'none') {
    out.reasoning_effort = reasoning_effort;
  }
  return out;
}

/** Removes keys from a body (parameters a model rejects). */
export function omit(body: Body, ...keys: string[]): Body {
  const out = { ...body };
  for (const key of keys) delete out[key];
  return out;
}
