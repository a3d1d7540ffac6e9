/** One demo API per process (its in-memory run store must outlive a request). */
import { createDemoApi } from './api.ts';

let api: ReturnType<typeof createDemoApi> | undefined;

export function devApi(): ReturnType<typeof createDemoApi> {
  api ??= createDemoApi();
  return api;
}
