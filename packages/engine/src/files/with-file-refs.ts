/**
 * A model that resolves file references before its request is encoded (`resolveFileRefs`), for
 * the engine's `files` option. A reference that cannot be resolved, or a file the model does not
 * take, ends the call like any provider failure (an `error` event and a `finish`), before any
 * provider call: the stream never throws.
 *
 * A call that named provider file ids (provider-files.ts) and that the provider answers, before any
 * output, with "no such file" (a 404, or a 400/403 whose message names a file: an id deleted or
 * expired early) is made once more with those ids dropped, so the files are uploaded again; the
 * caller sees only the second call. One retry: a second refusal is the call's error.
 */
import { ParlanceError, errorEvent, type ErrorEvent, type Event, type LanguageModel } from '@parlance/protocol';
import type { ProviderModel } from '../providers/types.ts';
import type { FileSource } from './file-source.ts';
import { createFileCache, resolveFileRefs } from './resolve-files.ts';

/** What the engine knows about a model's inputs (a provider model carries its catalog entry). */
function inputOf(model: LanguageModel): readonly string[] | undefined {
  const info = (model as { info?: { known?: boolean; input?: readonly string[] } }).info;
  return info?.known ? info.input : undefined;
}

/** Whether a provider's refusal says a file it was named by id is gone. */
function missingFile(event: ErrorEvent): boolean {
  return event.status === 404 || ((event.status === 400 || event.status === 403) && /\bfiles?\b/i.test(event.message));
}

/**
 * `model`, reading the files its requests reference from `source` (one bounded cache per wrapper).
 *
 * @example
 * const model = withFileRefs(resolveModel('anthropic:claude-sonnet-4-5'), { get: (ref) => blobs.get(ref.id) });
 */
export function withFileRefs(model: LanguageModel, source: FileSource | undefined): LanguageModel {
  const cache = createFileCache();
  const uploads = (model as Partial<ProviderModel>).files;
  const target = { dialect: model.dialect, input: inputOf(model), name: `${model.provider}:${model.modelId}`, provider: model.provider, uploads };
  // The model's own properties copied (provider, modelId, dialect, info, ...), not inherited: the
  // engine's telemetry spreads a model (`{ ...model }`), which reads own properties only.
  const wrapped: LanguageModel = Object.assign(Object.create(Object.getPrototypeOf(model) as object), model);
  Object.defineProperty(wrapped, 'stream', {
    enumerable: true,
    value: async function* stream(request: Parameters<LanguageModel['stream']>[0], options: Parameters<LanguageModel['stream']>[1] = {}): AsyncGenerator<Event> {
      for (let attempt = 0; ; attempt++) {
        const used: string[] = [];
        let resolved: typeof request;
        try {
          resolved = await resolveFileRefs(request, source, target, cache, options.signal, used);
        } catch (error) {
          const e = ParlanceError.from(error);
          yield { type: 'message-start' };
          yield errorEvent(e);
          yield { type: 'finish', finishReason: 'error', usage: {} };
          return;
        }
        const events = model.stream(resolved, options);
        if (used.length === 0 || attempt > 0 || !source?.providerFiles) {
          yield* events;
          return;
        }
        // Held back until the first output: a "no such file" before it is retried unseen.
        const held: Event[] = [];
        let open = false;
        let retry = false;
        for await (const event of events) {
          if (!open) {
            if (event.type === 'message-start' || event.type === 'warning') {
              held.push(event);
              continue;
            }
            open = true;
            if (event.type === 'error' && missingFile(event)) {
              // Leaving the loop closes the provider's stream.
              retry = true;
              break;
            }
            yield* held.splice(0);
          }
          yield event;
        }
        if (!retry) {
          yield* held;
          return;
        }
        for (const key of used) source.providerFiles.delete(key);
      }
    },
  });
  return wrapped;
}
