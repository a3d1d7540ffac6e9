/**
 * A model that resolves file references before its request is encoded (`resolveFileRefs`), for
 * the engine's `files` option. A reference that cannot be resolved, or a file the model does not
 * take, ends the call like any provider failure (an `error` event and a `finish`), before any
 * provider call: the stream never throws.
 */
import { ParlanceError, errorEvent, type Event, type LanguageModel } from '@parlance/protocol';
import type { FileSource } from './file-source.ts';
import { createFileCache, resolveFileRefs } from './resolve-files.ts';

/** What the engine knows about a model's inputs (a provider model carries its catalog entry). */
function inputOf(model: LanguageModel): readonly string[] | undefined {
  const info = (model as { info?: { known?: boolean; input?: readonly string[] } }).info;
  return info?.known ? info.input : undefined;
}

/**
 * `model`, reading the files its requests reference from `source` (one bounded cache per wrapper).
 *
 * @example
 * const model = withFileRefs(resolveModel('anthropic:claude-sonnet-4-5'), { get: (ref) => blobs.get(ref.id) });
 */
export function withFileRefs(model: LanguageModel, source: FileSource | undefined): LanguageModel {
  const cache = createFileCache();
  const target = { dialect: model.dialect, input: inputOf(model), name: `${model.provider}:${model.modelId}` };
  // The model's own properties copied (provider, modelId, dialect, info, ...), not inherited: the
  // engine's telemetry spreads a model (`{ ...model }`), which reads own properties only.
  const wrapped: LanguageModel = Object.assign(Object.create(Object.getPrototypeOf(model) as object), model);
  Object.defineProperty(wrapped, 'stream', {
    enumerable: true,
    value: async function* stream(request: Parameters<LanguageModel['stream']>[0], options: Parameters<LanguageModel['stream']>[1] = {}): AsyncGenerator<Event> {
      let resolved: typeof request;
      try {
        resolved = await resolveFileRefs(request, source, target, cache, options.signal);
      } catch (error) {
        const e = ParlanceError.from(error);
        yield { type: 'message-start' };
        yield errorEvent(e);
        yield { type: 'finish', finishReason: 'error', usage: {} };
        return;
      }
      yield* model.stream(resolved, options);
    },
  });
  return wrapped;
}
