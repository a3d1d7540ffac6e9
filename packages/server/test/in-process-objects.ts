import type { RunObjectNamespace } from '../src/durable-objects/durable-object-run-store.ts';
import { ParlanceRunStoreObject } from '../src/durable-objects/run-store-object.ts';

/** A Durable Object namespace in this process: each object a `ParlanceRunStoreObject`, reached through `fetch` as through a binding. */
export function inProcessNamespace(): RunObjectNamespace {
  const objects = new Map<string, ParlanceRunStoreObject>();
  return {
    idFromName: (name) => name,
    get: (id: never) => {
      const name = id as string;
      if (!objects.has(name)) objects.set(name, new ParlanceRunStoreObject());
      const object = objects.get(name)!;
      return { fetch: (input, init) => object.fetch(new Request(input, init)) };
    },
  };
}
