/**
 * A fallback chain: try each model in turn until one starts answering. A model is
 * abandoned only while it has produced nothing but `message-start`/`usage` followed by
 * an error (the request failed as a whole); once content has flowed, its stream is the
 * answer, errors included, because switching then would mix two answers.
 */
import type { ErrorEvent, Event, LanguageModel, ModelCallOptions, ModelRequest } from '@parlance/protocol';

/**
 * What `onFallback` gets: the model that failed, the next one, the error.
 *
 * @example
 * withFallback(models, { onFallback: ({ from, to, error }) => console.warn(`${from.modelId} -> ${to.modelId}: ${error.code}`) });
 */
export interface FallbackInfo {
  from: LanguageModel;
  to: LanguageModel;
  error: ErrorEvent;
}

/**
 * 
 *
 * @example
 * withFallback(models, { shouldFallback: (error) => error.code !== 'invalid_request' });
 */
export interface FallbackOptions {
  /** Whether this error should move on to the next model (default: any error but an abort). */
  shouldFallback?(error: ErrorEvent, model: LanguageModel): boolean;
  onFallback?(info: FallbackInfo): void;
}

/**
 * A model made by `withFallback` (its `models` in order).
 *
 * @example
 * console.log(model.models.map((m) => m.modelId));
 */
export interface FallbackModel extends LanguageModel {
  readonly models: readonly LanguageModel[];
}

const PREAMBLE = new Set<Event['type']>(['message-start', 'usage']);

/**
 * A model that tries the next one when a call fails before any output (rate limit, overload, outage).
 *
 * @example
 * const model = withFallback([resolveModel('anthropic:claude-sonnet-4-5'), resolveModel('openai:gpt-5')], { onFallback: (i) => console.warn(i) });
 */
export function withFallback(models: readonly LanguageModel[], options: FallbackOptions = {}): FallbackModel {
  const first = models[0];
  if (!first) throw new TypeError('withFallback needs at least one model');
  const shouldFallback = options.shouldFallback ?? ((error) => error.code !== 'aborted');

  async function* run(request: Omit<ModelRequest, 'model'>, callOptions: ModelCallOptions): AsyncGenerator<Event> {
    for (let i = 0; i < models.length; i++) {
      const model = models[i]!;
      const next = models[i + 1];
      const held: Event[] = [];
      let committed = false;
      let failedOver = false;
      for await (const event of model.stream(request, callOptions)) {
        if (committed) {
          yield event;
          continue;
        }
        if (PREAMBLE.has(event.type)) {
          held.push(event);
          continue;
        }
        if (event.type === 'error' && next && !callOptions.signal?.aborted && shouldFallback(event, model)) {
          options.onFallback?.({ from: model, to: next, error: event });
          failedOver = true;
          break;
        }
        committed = true;
        yield* held;
        yield event;
      }
      if (!failedOver) {
        if (!committed) yield* held;
        return;
      }
    }
  }

  return {
    provider: first.provider,
    modelId: first.modelId,
    dialect: first.dialect,
    models,
    stream: (request, callOptions = {}) => run(request, callOptions),
  };
}
