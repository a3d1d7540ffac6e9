/**
 * A script: what a fake model says, turn by turn. The fake provider replays it as
 * protocol events; `mockProviderServer` replays the same events in a dialect's real
 * wire format, so a test or a demo exercises the whole HTTP and decoding path.
 */
import type { ErrorCode, Event, FinishReason, ModelRequest, Usage } from '@parlance/protocol';

/**
 * A tool call in a scripted turn (the id is generated when not given).
 *
 * @example
 * const call: ScriptedToolCall = { name: 'weather', input: { city: 'Oslo' } };
 */
export interface ScriptedToolCall {
  /** Defaults to `call_<turn>_<index>`. */
  id?: string;
  name: string;
  input: unknown;
}

/**
 * What a fake model or mock provider does for one call: reasoning, text, tool calls, usage, a finish reason, an error, delays.
 *
 * @example
 * const turn: ScriptedTurn = { reasoning: 'Checking', text: ['It is ', '21°C'], usage: { inputTokens: 9, outputTokens: 4 }, delayMs: 20 };
 */
export interface ScriptedTurn {
  /** Reasoning, streamed first; an array gives the exact deltas. */
  reasoning?: string | string[];
  reasoningSignature?: string;
  /** Text; an array gives the exact deltas (a string is streamed word by word). */
  text?: string | string[];
  toolCalls?: ScriptedToolCall[];
  usage?: Usage;
  /**
   * Usage reported right after message-start, as providers report the input count before the first
   * token (Anthropic's message_start, Gemini's first chunk): what a stopped turn has already cost.
   */
  startUsage?: Usage;
  /** Defaults to 'tool-calls' when the turn calls tools, else 'stop'. */
  finishReason?: FinishReason;
  /** Fail the turn: as an HTTP error before any byte (`status`), or mid-stream after `afterEvents` events. */
  error?: { code: ErrorCode; message: string; status?: number; afterEvents?: number };
  /** Delay before each event (ms). */
  delayMs?: number;
  /** Delay before the first event (ms). */
  firstEventDelayMs?: number;
}

/**
 * A fixed list of turns (one per model call; the last repeats), or a function of the request.
 *
 * @example
 * const script: Script = (request, call) => (call === 0 ? { toolCalls: [{ name: 'search', input: { q: 'x' } }] } : { text: `Found ${request.messages.length} messages` });
 */
export type Script = ScriptedTurn[] | ((request: Omit<ModelRequest, 'model'>, call: number) => ScriptedTurn);

/**
 * The turn a script plays for a given call (a list repeats its last turn; a function is called).
 *
 * @example
 * turnAt([{ text: 'first' }, { text: 'then' }], request, 5); // { text: 'then' }
 */
export function turnAt(script: Script, request: Omit<ModelRequest, 'model'>, call: number): ScriptedTurn {
  if (typeof script === 'function') return script(request, call);
  const turn = script[Math.min(call, script.length - 1)];
  if (!turn) throw new Error('A script needs at least one turn');
  return turn;
}

function deltas(value: string | string[]): string[] {
  if (Array.isArray(value)) return value;
  return value.match(/\s*\S+\s*/g) ?? (value ? [value] : []);
}

/**
 * The canonical protocol events of one turn (before any error is applied).
 *
 * @example
 * turnToEvents({ reasoning: 'Hmm', text: 'Hello', usage: { inputTokens: 3, outputTokens: 2 } }).map((e) => e.type);
 */
export function turnToEvents(turn: ScriptedTurn, call = 0): Event[] {
  const events: Event[] = [{ type: 'message-start' }];
  if (turn.startUsage) events.push({ type: 'usage', usage: turn.startUsage });
  if (turn.reasoning !== undefined) {
    events.push({ type: 'reasoning-start', id: 'r0' });
    for (const delta of deltas(turn.reasoning)) events.push({ type: 'reasoning-delta', id: 'r0', delta });
    events.push(
      turn.reasoningSignature === undefined
        ? { type: 'reasoning-end', id: 'r0' }
        : { type: 'reasoning-end', id: 'r0', signature: turn.reasoningSignature },
    );
  }
  if (turn.text !== undefined) {
    events.push({ type: 'text-start', id: 't0' });
    for (const delta of deltas(turn.text)) events.push({ type: 'text-delta', id: 't0', delta });
    events.push({ type: 'text-end', id: 't0' });
  }
  (turn.toolCalls ?? []).forEach((call_, index) => {
    const id = call_.id ?? `call_${call}_${index}`;
    events.push({ type: 'tool-call-start', id, name: call_.name });
    events.push({ type: 'tool-call-delta', id, delta: JSON.stringify(call_.input) });
    events.push({ type: 'tool-call-end', id, input: call_.input });
  });
  const usage = turn.usage ?? {};
  if (turn.usage) events.push({ type: 'usage', usage });
  const finishReason = turn.finishReason ?? (turn.toolCalls?.length ? 'tool-calls' : 'stop');
  events.push({ type: 'finish', finishReason, usage });
  return events;
}
