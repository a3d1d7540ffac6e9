/**
 * Reasoning state across dialects. A provider's opaque reasoning state (an Anthropic
 * signature, Responses encrypted content, a Gemini thought signature) lives in the provider
 * state of the dialect that produced it. When the caller speaks another dialect, the gateway
 * hands that state to the caller inside the caller's own opaque slot (its signature,
 * `encrypted_content` or `thoughtSignature`) as an envelope, and opens the envelope when
 * the caller sends it back, so the provider gets its own state again on the next turn.
 * Callers whose API has no such slot (Chat Completions, Ollama) cannot carry it.
 *
 * The envelope is `parlance.1.` + base64url(JSON { providerState, signature? }). It is
 * client-held data like any signature: it can only steer the fields the dialect encoders
 * read from provider state, and it is bounded in size.
 */
import type { Event, Message, Part, ProviderState, ReasoningEndEvent, ReasoningPart } from '@parlance/protocol';

const PREFIX = 'parlance.1.';
/** Envelopes larger than this are ignored (a signature is a few KB; encrypted reasoning tens of KB). */
const MAX_ENVELOPE = 512 * 1024;

interface Sealed {
  providerState: ProviderState;
  signature?: string;
  /** The provider state of the first tool call after the reasoning (Gemini signs that call, not the thoughts). */
  firstCall?: ProviderState;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text: string): string {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

export function seal(state: Sealed): string {
  return PREFIX + toBase64Url(JSON.stringify(state));
}

function isState(value: unknown): value is ProviderState {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function open(value: unknown): Sealed | undefined {
  if (typeof value !== 'string' || !value.startsWith(PREFIX) || value.length > MAX_ENVELOPE) return undefined;
  try {
    const parsed: unknown = JSON.parse(fromBase64Url(value.slice(PREFIX.length)));
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    const { providerState, signature, firstCall } = parsed as Record<string, unknown>;
    if (!isState(providerState)) return undefined;
    const out: Sealed = { providerState };
    if (typeof signature === 'string') out.signature = signature;
    if (isState(firstCall)) out.firstCall = firstCall;
    return out;
  } catch {
    return undefined;
  }
}

/** Provider state the caller's own dialect can't read (so it must travel sealed). */
function foreign(state: ProviderState | undefined, clientDialect: string): state is ProviderState {
  return state !== undefined && Object.keys(state).length > 0 && !(clientDialect in state);
}

/**
 * Seals provider state for a caller of another dialect, event by event. A reasoning-end with
 * foreign state goes out with the sealed state as its signature. It is held until the next
 * event: when that is a tool call carrying state of its own (Gemini signs the first function
 * call of a turn, not the thoughts), the call's state goes into the same envelope; a signed
 * call with no reasoning before it gets an empty reasoning block to carry the envelope.
 */
export function createSealer(clientDialect: string): { push(event: Event): Event[]; flush(): Event[] } {
  let held: ReasoningEndEvent | undefined;
  let count = 0;
  const sealed = (end: ReasoningEndEvent, firstCall?: ProviderState): ReasoningEndEvent => {
    const state: Sealed = { providerState: foreign(end.providerState, clientDialect) ? end.providerState : {} };
    if (end.signature !== undefined) state.signature = end.signature;
    if (firstCall) state.firstCall = firstCall;
    const { providerState: _dropped, ...rest } = end;
    return { ...rest, signature: seal(state) };
  };
  const release = (): Event[] => {
    if (!held) return [];
    const end = foreign(held.providerState, clientDialect) ? sealed(held) : held;
    held = undefined;
    return [end];
  };
  return {
    push(event) {
      if (event.type === 'reasoning-end') {
        const out = release();
        held = event;
        return out;
      }
      if (event.type === 'tool-call-start' && !event.providerExecuted && foreign(event.providerState, clientDialect)) {
        const { providerState, ...call } = event;
        if (held) {
          const end = sealed(held, providerState);
          held = undefined;
          return [end, call];
        }
        const id = `sealed_${count++}`;
        return [{ type: 'reasoning-start', id }, sealed({ type: 'reasoning-end', id }, providerState), call];
      }
      return held ? [...release(), event] : [event];
    },
    flush: release,
  };
}

/** Every string a dialect decoder may have put a caller's opaque token in. */
function candidates(part: Part): unknown[] {
  const out: unknown[] = [];
  if (part.type === 'reasoning') out.push(part.signature);
  for (const value of Object.values(part.providerState ?? {})) {
    if (typeof value !== 'object' || value === null) continue;
    const state = value as Record<string, unknown>;
    out.push(state.signature, state.encryptedContent, state.thoughtSignature);
  }
  return out;
}

/**
 * Opens the envelopes in a caller's history: the reasoning gets back the provider state it
 * was produced with. An envelope found on another part (Gemini signs the first function call,
 * or the first text after the thoughts) goes to the reasoning before it in the same message,
 * or to an empty reasoning part put before it when the caller kept no thoughts.
 */
export function openEnvelopes(messages: Message[]): Message[] {
  return messages.map((message) => {
    if (message.role !== 'assistant') return message;
    let changed = false;
    const parts = message.parts.map((part) => ({ ...part }) as Part);
    /** Reasoning parts to put before the part at an index (the caller kept no thoughts). */
    const inserted = new Map<number, ReasoningPart>();
    let lastReasoning: ReasoningPart | undefined;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i]!;
      const sealed = candidates(part).map(open).find((found) => found !== undefined);
      if (part.type === 'reasoning') lastReasoning = part;
      if (!sealed) continue;
      changed = true;
      if (part.type !== 'reasoning') delete part.providerState;
      if (!lastReasoning) {
        lastReasoning = { type: 'reasoning', text: '' };
        inserted.set(i, lastReasoning);
      }
      const target = lastReasoning;
      target.providerState = sealed.providerState;
      if (sealed.signature !== undefined) target.signature = sealed.signature;
      else delete target.signature;
      if (sealed.firstCall) {
        const call = parts.slice(i).find((next) => next.type === 'tool-call');
        if (call) call.providerState = sealed.firstCall;
      }
    }
    if (!changed) return message;
    return { ...message, parts: inserted.size === 0 ? parts : parts.flatMap((part, i) => (inserted.has(i) ? [inserted.get(i)!, part] : [part])) };
  });
}
