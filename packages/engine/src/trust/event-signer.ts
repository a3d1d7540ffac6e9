/**
 * Signing a run's events one at a time, as they pass (`ThreadTrust.eventSigner`; `signEvents` is
 * this over an async iterable). It folds the events from where the run starts to know where each
 * tool call, result and pause sits, and adds their signatures (and, to the thread a `chat-finish`
 * carries, the parts and pause as signed here). Only signing is asynchronous (Web Crypto), so an
 * event that needs no signature (every delta) is handled synchronously: a server applies it in the
 * stage that already reads each event instead of through one more async iterator per event.
 */
import { createFoldState, reduceEvents, runMessages, type Event, type FoldState, type Thread, type ToolCallPart, type ToolResultPart } from '@parlance/protocol';
import { callText, pauseText, resultText, type Scope } from './signed-texts.ts';

/**
 * Signs a run's events as they pass. `push` puts what to send for one event into `out`: the event,
 * signed where it needs a signature, preceded by the end of a tool call it cuts off. It returns a
 * promise only when a signature is computed (then `out` is filled once it resolves); otherwise `out`
 * holds the result on return. Push the events in order, and the next only once a returned promise has resolved.
 *
 * @example
 * const signer = trust.eventSigner(thread, { principal: user.id });
 * const out: Event[] = [];
 * for await (const event of run) {
 *   await signer.push(event, out);
 *   for (const signed of out) send(signed);
 *   out.length = 0;
 * }
 */
export interface EventSigner {
  push(event: Event, out: Event[]): Promise<void> | undefined;
}

type TextDelta = Extract<Event, { type: 'text-delta' | 'reasoning-delta' }>;

/** The signer of one run: `scope` names whom it signs for, `thread` is what the run started from. */
export function createEventSigner(scope: Scope, thread: Thread, signText: (build: () => string) => Promise<string | undefined>): EventSigner {
  // From where the engine and the client start (`runMessages`), so positions signed here are theirs.
  let state: FoldState = createFoldState(runMessages(thread.messages));
  /**
   * Text and reasoning deltas of a block already open change no position and no part that is
   * signed, so they are not folded one by one (the engine folded each already): their text is
   * held and folded as one delta before the next other event, which leaves the fold exactly as
   * folding each would (only the text of the `chat-finish` thread reads it).
   */
  let held: TextDelta | undefined;
  const flush = () => {
    if (!held) return;
    const delta = held;
    held = undefined;
    state = reduceEvents(state, delta);
  };
  const pass = (event: Event): Event => {
    state = reduceEvents(state, event);
    return event;
  };

  const signCallEnd = async (event: Extract<Event, { type: 'tool-call-end' }>): Promise<Event> => {
    const { signature: _ignored, ...unsigned } = event;
    const folded = reduceEvents(state, unsigned);
    const ref = folded.blocks[event.id]!;
    const message = folded.messages[ref.message]!;
    const part = message.parts[ref.part] as ToolCallPart;
    const signature = await signText(() => callText(scope, message, ref.part, part));
    return pass(signature ? { ...unsigned, signature } : unsigned);
  };

  /** A `finish` or `chat-finish`: a call cut off mid-stream is closed by it, so it is ended explicitly, signed, first. */
  async function finishing(event: Extract<Event, { type: 'finish' | 'chat-finish' }>, out: Event[]): Promise<void> {
    const closed = reduceEvents(state, event);
    for (const [id, ref] of Object.entries(state.blocks)) {
      const part = state.messages[ref.message]?.parts[ref.part];
      if (!ref.open || part?.type !== 'tool-call') continue;
      const input = (closed.messages[ref.message]!.parts[ref.part] as ToolCallPart).input;
      out.push(await signCallEnd({ type: 'tool-call-end', id, input }));
    }
    out.push(ending(event));
  }

  function ending(event: Extract<Event, { type: 'finish' | 'chat-finish' }>): Event {
    state = reduceEvents(state, event);
    if (event.type === 'finish' || !event.thread) return event;
    // The runner's own thread (its list decides which messages there are: it may leave out an empty
    // message of a failed attempt; it may add metadata), with the parts and pause as signed here.
    const signed = new Map(state.messages.map((m) => [m.id, m]));
    const messages = event.thread.messages.map((m) => {
      const mine = signed.get(m.id);
      if (!mine) return m;
      const { pause: _unsigned, ...rest } = m;
      return mine.pause ? { ...rest, parts: mine.parts, pause: mine.pause } : { ...rest, parts: mine.parts };
    });
    return { ...event, thread: { ...event.thread, messages } };
  }

  async function toolResult(event: Extract<Event, { type: 'tool-result' }>, out: Event[]): Promise<void> {
    const { signature: _ignored, ...unsigned } = event;
    const folded = reduceEvents(state, unsigned);
    const at = unsigned.providerExecuted ? folded.current : folded.messages.length - 1;
    const message = folded.messages[at]!;
    const index = message.parts.length - 1;
    const signature = await signText(() => resultText(scope, folded.messages, at, index, message.parts[index] as ToolResultPart));
    out.push(pass(signature ? { ...unsigned, signature } : unsigned));
  }

  async function paused(event: Extract<Event, { type: 'run-paused' }>, at: number, out: Event[]): Promise<void> {
    const message = state.messages[at]!;
    const { signature: _ignored, ...unsigned } = event;
    const signature = await signText(() => pauseText(scope, message, event.waitingFor));
    out.push(pass(signature ? { ...unsigned, messageId: message.id, signature } : { ...unsigned, messageId: message.id }));
  }

  return {
    push(event, out) {
      if (event.type === 'text-delta' || event.type === 'reasoning-delta') {
        if (held?.id === event.id && held.type === event.type) held.delta += event.delta;
        else {
          flush();
          // A delta that opens its block (no start before it) changes positions: folded now.
          if (state.blocks[event.id]?.open) held = { type: event.type, id: event.id, delta: event.delta };
          else pass(event);
        }
        out.push(event);
        return undefined;
      }
      flush();
      switch (event.type) {
        case 'tool-call-end':
          return signCallEnd(event).then((signed) => void out.push(signed));
        case 'finish':
        case 'chat-finish': {
          const open = Object.values(state.blocks).some((ref) => ref.open && state.messages[ref.message]?.parts[ref.part]?.type === 'tool-call');
          if (open) return finishing(event, out);
          out.push(ending(event));
          return undefined;
        }
        case 'tool-result':
          return toolResult(event, out);
        case 'run-paused': {
          let at = -1;
          for (let i = state.messages.length - 1; i >= 0 && at < 0; i--) {
            const m = state.messages[i]!;
            if (event.messageId !== undefined ? m.id === event.messageId : m.role === 'assistant') at = i;
          }
          if (at >= 0) return paused(event, at, out);
          out.push(pass(event));
          return undefined;
        }
        default:
          out.push(pass(event));
          return undefined;
      }
    },
  };
}
