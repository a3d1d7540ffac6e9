/**
 * What a `ChatStore` does about persistence when its adapter brings none: nothing, without `persist`;
 * a typed error, with an adapter that was not made by `definePersistAdapter` (nor is a built-in one).
 * The real thing (chat-persistence.ts: merge, tab sync, the run lock) comes with the adapter, so an
 * app that persists nothing does not download it.
 */
import { ParlanceError } from '@parlance/protocol';
import type { Persistence, PersistenceHost } from './chat-persistence.ts';

/** No `persist` option: nothing is loaded or saved. */
export const noPersistence: Persistence = {
  load: async () => {},
  listen: () => {},
  unlisten: () => {},
  persisted: async () => {},
  claims: () => false,
  claim: async () => true,
  runEnded: () => {},
  afterRun: () => {},
  published: () => {},
};

/** A `persist` adapter without `attach`: loading ends with an `invalid_request` error that says how to make one; nothing is saved. */
export function unattachedPersistence(host: PersistenceHost): Persistence {
  return {
    ...noPersistence,
    load: async () => {
      const error = new ParlanceError(
        'invalid_request',
        'The persist adapter brings no chat persistence: make a custom adapter with definePersistAdapter({ load, save, ... }) (the built-in adapters have it)',
        { retryable: false },
      );
      host.dispatch({ type: 'load', persistError: { ...error.toJSON(), message: `${error.message}; changes to this chat are not saved` } });
      host.fail(error);
    },
  };
}
