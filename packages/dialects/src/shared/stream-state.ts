/**
 * The bookkeeping every decoder shares: which blocks are open, the usage reported
 * so far, whether the response has finished. Decoders describe what the provider
 * said; this turns it into well-formed protocol events (every block started before
 * its deltas, closed before `finish`, exactly one `finish`, nothing after it).
 */
import type { Event, FinishReason, ProviderState, Usage } from '@parlance/protocol';
import { mergeUsage } from '@parlance/protocol';
import type { DecoderFailure } from '../types.ts';

type BlockKind = 'text' | 'reasoning' | 'tool-call';

interface OpenBlock {
  kind: BlockKind;
  /** Tool-call argument fragments, joined once at the end (never re-parsed per fragment). */
  args?: string[];
  providerState?: ProviderState;
  signature?: string;
  redacted?: boolean;
}

export interface MessageInfo {
  responseId?: string | undefined;
  model?: string | undefined;
}

export interface ToolEndOptions {
  /** The complete input, when the provider sends it whole (Gemini, Ollama). */
  input?: unknown;
  providerState?: ProviderState;
}

/**
 * A decoder's running state (open blocks, usage, whether it started and finished).
 *
 * @example
 * if (!state.finished) console.log('stream still open', state.usage);
 */
export interface StreamState {
  readonly finished: boolean;
  readonly started: boolean;
  usage: Usage;
  /** Emits `message-start` once; later calls only fill in what was missing. */
  start(out: Event[], info?: MessageInfo): void;
  isOpen(id: string): boolean;
  kindOf(id: string): BlockKind | undefined;
  openText(out: Event[], id: string, providerState?: ProviderState): void;
  openReasoning(out: Event[], id: string, providerState?: ProviderState): void;
  text(out: Event[], id: string, delta: string): void;
  reasoning(out: Event[], id: string, delta: string): void;
  /** Sets what `reasoning-end` will carry (signatures arrive before the block closes). */
  annotate(id: string, patch: { signature?: string; redacted?: boolean; providerState?: ProviderState }): void;
  toolStart(out: Event[], id: string, name: string, options?: { providerExecuted?: boolean; providerState?: ProviderState }): void;
  toolDelta(out: Event[], id: string, delta: string): void;
  /** Closes any block. For a tool call, parses the arguments (or takes `input`). */
  end(out: Event[], id: string, options?: ToolEndOptions): void;
  closeAll(out: Event[]): void;
  addUsage(out: Event[], usage: Usage, emit?: boolean): void;
  finish(out: Event[], reason: FinishReason, raw?: string): void;
  /** Closes open blocks, then `error` and `finish` ('cancelled' for an abort, 'error' otherwise). */
  fail(out: Event[], failure: DecoderFailure): void;
  /** The body ended: finishes with `pending` if the provider said how it ended, else reports a cut stream. */
  endOfStream(out: Event[], pending?: { reason: FinishReason; raw?: string | undefined }): void;
}

const RETRYABLE = new Set(['rate_limited', 'overloaded', 'server_error', 'timeout', 'network', 'invalid_response']);

/**
 * Parses complete tool arguments. Empty means "no arguments"; invalid JSON is kept as the raw string.
 *
 * @example
 * parseToolInput('{"city":"Oslo"}'); // { ok: true, value: { city: 'Oslo' } }
 */
export function parseToolInput(text: string): { ok: true; value: unknown } | { ok: false; raw: string; message: string } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, raw: text, message: error instanceof Error ? error.message : String(error) };
  }
}

export function createStreamState(): StreamState {
  const open = new Map<string, OpenBlock>();
  let started = false;
  let finished = false;
  let usage: Usage = {};

  function ensureStarted(out: Event[]) {
    if (!started) {
      started = true;
      out.push({ type: 'message-start' });
    }
  }

  function openBlock(out: Event[], id: string, kind: BlockKind, providerState?: ProviderState) {
    if (finished) return;
    ensureStarted(out);
    if (open.has(id)) return;
    const block: OpenBlock = { kind };
    if (kind === 'tool-call') block.args = [];
    open.set(id, block);
    if (kind === 'text') out.push(providerState ? { type: 'text-start', id, providerState } : { type: 'text-start', id });
    else if (kind === 'reasoning')
      out.push(providerState ? { type: 'reasoning-start', id, providerState } : { type: 'reasoning-start', id });
  }

  const state: StreamState = {
    get finished() {
      return finished;
    },
    get started() {
      return started;
    },
    get usage() {
      return usage;
    },
    set usage(value) {
      usage = value;
    },
    start(out, info) {
      if (started || finished) return;
      started = true;
      const event: Event = { type: 'message-start' };
      if (info?.responseId !== undefined) event.responseId = info.responseId;
      if (info?.model !== undefined) event.model = info.model;
      out.push(event);
    },
    isOpen: (id) => open.has(id),
    kindOf: (id) => open.get(id)?.kind,
    openText: (out, id, providerState) => openBlock(out, id, 'text', providerState),
    openReasoning: (out, id, providerState) => openBlock(out, id, 'reasoning', providerState),
    text(out, id, delta) {
      if (finished || delta === '') return;
      openBlock(out, id, 'text');
      out.push({ type: 'text-delta', id, delta });
    },
    reasoning(out, id, delta) {
      if (finished || delta === '') return;
      openBlock(out, id, 'reasoning');
      out.push({ type: 'reasoning-delta', id, delta });
    },
    annotate(id, patch) {
      const block = open.get(id);
      if (!block) return;
      if (patch.signature !== undefined) block.signature = (block.signature ?? '') + patch.signature;
      if (patch.redacted) block.redacted = true;
      if (patch.providerState) block.providerState = { ...block.providerState, ...patch.providerState };
    },
    toolStart(out, id, name, options) {
      if (finished || open.has(id)) return;
      ensureStarted(out);
      const block: OpenBlock = { kind: 'tool-call', args: [] };
      open.set(id, block);
      const event: Event = { type: 'tool-call-start', id, name };
      if (options?.providerExecuted) event.providerExecuted = true;
      if (options?.providerState) event.providerState = options.providerState;
      out.push(event);
    },
    toolDelta(out, id, delta) {
      const block = open.get(id);
      if (finished || !block || block.kind !== 'tool-call' || delta === '') return;
      block.args!.push(delta);
      out.push({ type: 'tool-call-delta', id, delta });
    },
    end(out, id, options) {
      const block = open.get(id);
      if (!block) return;
      open.delete(id);
      const providerState =
        block.providerState || options?.providerState ? { ...block.providerState, ...options?.providerState } : undefined;
      if (block.kind === 'text') {
        out.push(providerState ? { type: 'text-end', id, providerState } : { type: 'text-end', id });
      } else if (block.kind === 'reasoning') {
        const event: Event = { type: 'reasoning-end', id };
        if (block.signature !== undefined) event.signature = block.signature;
        if (block.redacted) event.redacted = true;
        if (providerState) event.providerState = providerState;
        out.push(event);
      } else {
        let input: unknown;
        if (options && 'input' in options) input = options.input;
        else {
          const parsed = parseToolInput(block.args!.join(''));
          input = parsed.ok ? parsed.value : parsed.raw;
        }
        const event: Event = { type: 'tool-call-end', id, input };
        if (providerState) event.providerState = providerState;
        out.push(event);
      }
    },
    closeAll(out) {
      for (const id of [...open.keys()]) state.end(out, id);
    },
    addUsage(out, report, emit = true) {
      if (finished) return;
      usage = mergeUsage(usage, report);
      if (emit) out.push({ type: 'usage', usage: report });
    },
    finish(out, reason, raw) {
      if (finished) return;
      ensureStarted(out);
      state.closeAll(out);
      finished = true;
      const event: Event = { type: 'finish', finishReason: reason, usage };
      if (raw !== undefined) event.rawFinishReason = raw;
      out.push(event);
    },
    fail(out, failure) {
      if (finished) return;
      ensureStarted(out);
      state.closeAll(out);
      const event: Event = {
        type: 'error',
        code: failure.code,
        message: failure.message,
        retryable: failure.retryable ?? RETRYABLE.has(failure.code),
      };
      if (failure.status !== undefined) event.status = failure.status;
      out.push(event);
      state.finish(out, failure.code === 'aborted' ? 'cancelled' : 'error');
    },
    endOfStream(out, pending) {
      if (finished) return;
      if (pending) state.finish(out, pending.reason, pending.raw);
      else state.fail(out, { code: 'invalid_response', message: 'The stream ended before the response finished' });
    },
  };
  return state;
}

/** JSON.parse that reports instead of throwing. */
export function parseJson(data: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(data) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Wraps a decoder body so no exception escapes `push` (a bug or an absurd payload becomes an error event). */
export function guard(state: StreamState, out: Event[], run: () => void): Event[] {
  try {
    run();
  } catch (error) {
    state.fail(out, {
      code: 'invalid_response',
      message: `Could not decode the provider's stream: ${error instanceof Error ? error.message : String(error)}`,
    });
  }
  return out;
}
