/**
 * The Durable Object behind `createDurableObjectRunStore`: one object holds the runs of a
 * shard in memory (the memory store), and every Worker request reaches it by name, from
 * any location. Requests to one object share its I/O context, so a read waiting here is
 * woken by an append from another request at once, and a cancel from any request is seen
 * by the run's owner through its waiting `waitCancel` call.
 *
 * It speaks JSON over `fetch` ({ op, args, limits } in, { ok } or { error } out), so it needs
 * no `cloudflare:workers` import and the store can be tested against it anywhere.
 */
import { ParlanceError } from '@parlance/protocol';
import { createMemoryRunStore, type MemoryRunStore } from '../memory-run-store.ts';
import type { RunLimits } from '../run-store.ts';

/** One call from a Worker to the object. */
export interface RunStoreCall {
  op: 'create' | 'get' | 'append' | 'finish' | 'cancel' | 'renewLease' | 'waitCancel' | 'read' | 'setValue' | 'getValue' | 'deleteValue' | 'launch';
  args: unknown[];
  limits: RunLimits;
}

/** The call a request carries, or the 400 that answers a request that is not one. */
export async function readRunStoreCall(request: Request): Promise<RunStoreCall | Response> {
  try {
    return (await request.json()) as RunStoreCall;
  } catch {
    return Response.json({ error: new ParlanceError('invalid_request', 'Not a run store call').toJSON() }, { status: 400 });
  }
}

/** Answers one store call on `store`: `{ ok }` with its result, or `{ error }` with its typed error. */
export async function answerRunStoreCall(store: MemoryRunStore, call: RunStoreCall, request: Request): Promise<Response> {
  const a = call.args as [never, never, never, never];
  try {
    const result = await (async () => {
      switch (call.op) {
        case 'create':
          return store.create(a[0]);
        case 'get':
          return store.get(a[0]);
        case 'append':
          return store.append(a[0], a[1], a[2], a[3]);
        case 'finish':
          return store.finish(a[0]);
        case 'cancel':
          return store.cancel(a[0]);
        case 'renewLease':
          return store.renewLease(a[0], a[1]);
        case 'waitCancel':
          return store.waitCancel(a[0], a[1], request.signal);
        case 'read':
          return store.read(a[0], a[1], a[2], request.signal);
        case 'setValue':
          return store.setValue(a[0], a[1], a[2]);
        case 'getValue':
          return store.getValue(a[0]);
        case 'deleteValue':
          return store.deleteValue(a[0], a[1]);
        case 'launch':
          throw new ParlanceError('server_error', 'This Durable Object does not run runs: bind the class `parlanceRunObject()` makes (see the server README)', { retryable: false });
        default:
          throw new ParlanceError('invalid_request', `Unknown run store call "${String(call.op)}"`);
      }
    })();
    return Response.json({ ok: result ?? null });
  } catch (error) {
    return Response.json({ error: ParlanceError.from(error, 'server_error').toJSON() });
  }
}

/**
 * The Durable Object class that keeps runs for `createDurableObjectRunStore`. Export it from
 * your Worker and bind it in `wrangler.jsonc`. Its runs live in its memory and run in the Worker
 * requests that start them; for runs that outlive an evicted object, see `parlanceRunObject`.
 *
 * @example
 * ```ts
 * // src/index.ts
 * export { ParlanceRunStoreObject } from '@parlance/server/durable-objects';
 * // wrangler.jsonc
 * // "durable_objects": { "bindings": [{ "name": "PARLANCE_RUNS", "class_name": "ParlanceRunStoreObject" }] },
 * // "migrations": [{ "tag": "v1", "new_sqlite_classes": ["ParlanceRunStoreObject"] }]
 * ```
 */
export class ParlanceRunStoreObject {
  private store: MemoryRunStore | undefined;

  async fetch(request: Request): Promise<Response> {
    const call = await readRunStoreCall(request);
    if (call instanceof Response) return call;
    // Limits travel with every call: the first call after the object starts sets them.
    this.store ??= createMemoryRunStore({ limits: call.limits, pollMs: false });
    return answerRunStoreCall(this.store, call, request);
  }
}
