// Requests to the Worker under test inside workerd (`SELF` of cloudflare:test). Kept apart
// from sse.ts, which the Node tests share and which therefore cannot import cloudflare:test.
import { SELF } from 'cloudflare:test';

export const BASE = 'https://worker.example';

export function postChat(body: string): Promise<Response> {
  return SELF.fetch(`${BASE}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
}
