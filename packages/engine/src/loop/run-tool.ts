/**
 * One tool call, from the model's arguments to a result or a reason to wait.
 * Bad calls (unknown tool, arguments that are not JSON or fail the schema) become
 * error results the model can correct; the handler never sees them.
 */
import { INTERRUPTED_RESULT } from './checkpoint.ts';
import { ParlanceError, isAbortError, type Message, type ToolCallPart } from '@parlance/protocol';
import type { Hooks, ToolCallInfo } from '../options.ts';
import type { AnyTool } from '../tools/tool.ts';
import type { PendingCall } from './result.ts';

export type Resolution =
  | { type: 'result'; output: unknown; isError?: boolean }
  | { type: 'approval'; approved: boolean; reason?: string }
  | { type: 'answer'; answer: string };

export type CallOutcome =
  | { type: 'result'; call: ToolCallPart; output: unknown; isError: boolean; toolError?: unknown }
  | { type: 'pending'; call: ToolCallPart; pending: PendingCall };

export interface RunToolContext {
  tools: ReadonlyMap<string, AnyTool>;
  hooks: Hooks;
  signal: AbortSignal;
  defaultTimeoutMs: number;
  messages: readonly Message[];
  /** Calls that may have begun in a process that stopped (a run going on from a checkpoint): only an `idempotent` tool runs them again. */
  interrupted?: ReadonlySet<string>;
}

/** Thrown out of a hook so the run ends with `error` rather than a tool result. */
export class HookError extends Error {
  constructor(
    readonly hook: string,
    readonly original: unknown,
  ) {
    super(`The ${hook} hook threw: ${original instanceof Error ? original.message : String(original)}`);
  }
}

async function hook<T>(name: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw new HookError(name, error);
  }
}

const ASK = Symbol('parlance.ask-user');

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function result(call: ToolCallPart, output: unknown, isError: boolean, toolError?: unknown): CallOutcome {
  const out: CallOutcome = { type: 'result', call, output, isError };
  if (toolError !== undefined) out.toolError = toolError;
  return out;
}

function abortError(signal: AbortSignal): unknown {
  return signal.reason ?? new ParlanceError('aborted', 'The run was aborted');
}

export async function runToolCall(call: ToolCallPart, ctx: RunToolContext, resolution?: Resolution): Promise<CallOutcome> {
  if (resolution?.type === 'result') return result(call, resolution.output, resolution.isError ?? false);
  if (resolution?.type === 'answer') return result(call, resolution.answer, false);
  if (resolution?.type === 'approval' && !resolution.approved) {
    return result(call, `The user denied this tool call${resolution.reason ? `: ${resolution.reason}` : '.'}`, true);
  }
  const tool = ctx.tools.get(call.name);
  if (!tool) {
    // Generic on purpose: the answer may reach a browser, and must not list the server's tools.
    return result(call, 'This tool is not available.', true);
  }
  let raw = call.input;
  if (typeof raw === 'string') {
    // The fold keeps arguments it could not parse as the raw text.
    try {
      raw = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch (error) {
      return result(call, `Invalid arguments for "${call.name}": not valid JSON (${message(error)}).`, true);
    }
  }
  const checked = await tool.schema.validate(raw);
  if (!checked.ok) return result(call, `Invalid arguments for "${call.name}": ${checked.message}`, true);
  let input: unknown = checked.value;

  if (!tool.execute) {
    return { type: 'pending', call, pending: { toolCallId: call.id, name: call.name, input: call.input, kind: 'client-tool' } };
  }
  if (resolution?.type !== 'approval' && tool.needsApproval) {
    const needs =
      typeof tool.needsApproval === 'function'
        ? await hook('needsApproval', () => (tool.needsApproval as (i: unknown, c: { toolCallId: string }) => boolean)(input, { toolCallId: call.id }))
        : tool.needsApproval;
    if (needs) return { type: 'pending', call, pending: { toolCallId: call.id, name: call.name, input: call.input, kind: 'approval' } };
  }

  const info: ToolCallInfo = { toolCallId: call.id, name: call.name, input };
  if (ctx.hooks.beforeToolCall) {
    const decision = await hook('beforeToolCall', () => ctx.hooks.beforeToolCall!(info));
    if (decision && 'block' in decision) {
      const reason = decision.block === true ? 'it was blocked' : decision.block;
      return result(call, `The tool call was not run: ${reason}`, true);
    }
    if (decision && 'input' in decision) {
      input = decision.input;
      info.input = input;
    }
  }

  // It may have taken effect before its process stopped: run again only what says it is safe to (keyed by the call id).
  if (ctx.interrupted?.has(call.id) && !tool.idempotent) return result(call, INTERRUPTED_RESULT, true);

  const timeoutMs = tool.timeoutMs ?? ctx.defaultTimeoutMs;
  const controller = new AbortController();
  const onAbort = () => controller.abort(abortError(ctx.signal));
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  let question: string | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let outcome: CallOutcome;
  try {
    if (ctx.signal.aborted) throw abortError(ctx.signal);
    const stopped = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new ParlanceError('timeout', `The tool "${call.name}" timed out after ${timeoutMs} ms`);
        controller.abort(error);
      }, timeoutMs);
      controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
    });
    stopped.catch(() => {});
    const context = {
      toolCallId: call.id,
      signal: controller.signal,
      messages: ctx.messages,
      askUser(q: string): Promise<never> {
        question = q;
        const stop = Promise.reject(ASK);
        stop.catch(() => {}); // a handler that does not await it must not cause an unhandled rejection
        return stop;
      },
    };
    try {
      const output = await Promise.race([Promise.resolve().then(() => tool.execute!(input, context)), stopped]);
      outcome = question !== undefined ? askOutcome(call, question) : result(call, output, false);
    } catch (error) {
      if (ctx.signal.aborted) throw abortError(ctx.signal);
      if (question !== undefined) return askOutcome(call, question);
      const text = ParlanceError.isInstance(error) && error.code === 'timeout' ? error.message : `The tool "${call.name}" failed: ${message(error)}`;
      outcome = result(call, text, true, error);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    ctx.signal.removeEventListener('abort', onAbort);
    // Stop whatever the handler still runs (a timed-out fetch, a child process).
    if (!controller.signal.aborted) controller.abort(new ParlanceError('aborted', 'The tool call is over'));
  }

  if (outcome.type === 'result' && ctx.hooks.afterToolCall) {
    const replaced = await hook('afterToolCall', () =>
      ctx.hooks.afterToolCall!(info, { output: outcome.type === 'result' ? outcome.output : undefined, isError: outcome.type === 'result' && outcome.isError }),
    );
    if (replaced) outcome = { ...outcome, output: replaced.output, isError: replaced.isError };
  }
  return outcome;
}

function askOutcome(call: ToolCallPart, question: string): CallOutcome {
  return { type: 'pending', call, pending: { toolCallId: call.id, name: call.name, input: call.input, kind: 'ask-user', question } };
}

export function isAbort(error: unknown): boolean {
  return isAbortError(error) || (ParlanceError.isInstance(error) && error.code === 'aborted');
}
