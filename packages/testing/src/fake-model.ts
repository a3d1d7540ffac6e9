/**
 * A scripted fake provider: a `LanguageModel` that replays a script turn by turn as
 * protocol events, with no network. It keeps every request it received, so a test
 * can assert what the engine sent (history, tools, structured output settings).
 */
import { ParlanceError, errorEvent, mergeUsage, type Event, type LanguageModel, type ModelCallOptions, type ModelRequest, type Usage } from '@parlance/protocol';
import { turnAt, turnToEvents, type Script, type ScriptedTurn } from './script.ts';

/**
 * 
 *
 * @example
 * const options: FakeModelOptions = { script: [{ text: 'Hi' }], provider: 'openai', modelId: 'gpt-5-mini', dialect: 'openai_responses' };
 */
export interface FakeModelOptions {
  script: Script;
  provider?: string;
  modelId?: string;
  /** The dialect the engine should believe it talks to (it picks structured-output modes by dialect). */
  dialect?: string;
}

/**
 * A `LanguageModel` that replays a script and records its requests.
 *
 * @example
 * expect(model.requests[1]!.messages.at(-1)!.role).toBe('tool');
 */
export interface FakeModel extends LanguageModel {
  /** Every request received, in order (deep copies, so later mutation by the caller does not rewrite history). */
  readonly requests: Omit<ModelRequest, 'model'>[];
  /** Call options received (signals, headers), in order. */
  readonly callOptions: ModelCallOptions[];
}

/**
 * A scripted `LanguageModel` for tests: replays its script turn by turn as protocol events, no network, and keeps every request.
 *
 * @example
 * const model = fakeModel({ script: [{ toolCalls: [{ name: 'weather', input: { city: 'Oslo' } }] }, { text: 'It is 21°C.' }] });
 * await createEngine().chat({ model, prompt: 'Weather?', tools: [weather] });
 * expect(model.requests).toHaveLength(2);
 */
export function fakeModel(options: FakeModelOptions): FakeModel {
  const requests: Omit<ModelRequest, 'model'>[] = [];
  const callOptions: ModelCallOptions[] = [];
  return {
    provider: options.provider ?? 'fake',
    modelId: options.modelId ?? 'fake-model',
    dialect: options.dialect ?? 'fake',
    requests,
    callOptions,
    stream(request, callOpts = {}) {
      const call = requests.length;
      requests.push(structuredClone(request));
      callOptions.push(callOpts);
      return replay(turnAt(options.script, request, call), call, callOpts.signal);
    },
  };
}

/** Resolves after `ms`, or early (with false) when the signal aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function failure(turn: ScriptedTurn, usage: Usage): Event[] {
  const spec = turn.error!;
  const error = new ParlanceError(spec.code, spec.message, spec.status === undefined ? {} : { status: spec.status });
  return [errorEvent(error), { type: 'finish', finishReason: 'error', usage }];
}

/**
 * What a real transport emits when the caller aborts: an `aborted` error, then finish 'cancelled'
 * with the usage the turn reported before the stop.
 */
function aborted(usage: Usage): Event[] {
  return [errorEvent(new ParlanceError('aborted', 'The request was aborted')), { type: 'finish', finishReason: 'cancelled', usage }];
}

async function* replay(turn: ScriptedTurn, call: number, signal: AbortSignal | undefined): AsyncGenerator<Event> {
  let usage: Usage = {};
  if (!(await sleep(turn.firstEventDelayMs ?? 0, signal))) return yield* aborted(usage);
  // An HTTP error happens before any byte of the body.
  if (turn.error && turn.error.afterEvents === undefined) return yield* failure(turn, usage);
  const events = turnToEvents(turn, call);
  const cut = turn.error?.afterEvents;
  for (let i = 0; i < events.length; i++) {
    if (cut !== undefined && i === cut) return yield* failure(turn, usage);
    if (i > 0 || turn.firstEventDelayMs === undefined) {
      if (!(await sleep(turn.delayMs ?? 0, signal))) return yield* aborted(usage);
    }
    if (signal?.aborted) return yield* aborted(usage);
    const event = events[i]!;
    if (event.type === 'usage') usage = mergeUsage(usage, event.usage);
    yield event;
  }
}
