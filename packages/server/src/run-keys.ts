/**
 * Run ownership: a run is stored under the key of the request that started it, the principal's
 * id and the client's request id as a JSON pair, so neither can be forged by a prefix or a separator.
 */
import type { Principal } from './server-options.ts';

/** The collision-free key of a request: principal id and client request id as a JSON pair. */
export function requestKey(principal: Principal | undefined, clientRequestId: string): string {
  return JSON.stringify([principal?.id ?? null, clientRequestId]);
}

/** Whether a stored run belongs to this principal (the whole id compared, never a prefix). */
export function ownedBy(key: string, principal: Principal | undefined): boolean {
  try {
    const parsed = JSON.parse(key) as unknown;
    return Array.isArray(parsed) && parsed.length === 2 && parsed[0] === (principal?.id ?? null);
  } catch {
    return false;
  }
}
