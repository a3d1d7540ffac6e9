import { expect, it } from 'vitest';
import { app, provider } from './worker.ts';

// The app is called in the test's own request context: workerd forbids resolving a promise
// across request contexts, so the gate that holds the fake provider open must live here.

it('runs in workerd (navigator.userAgent) and streams incrementally inside workerd: the first event arrives before the provider stream has ended', async () => {
  const res = await app.request('http://example.com/chat', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ messages: [{ id: 'u', role: 'user', parts: [{ type: 'text', text: 'hi' }] }], clientRequestId: 'w1' }),
  });
  expect((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent).toBe('Cloudflare-Workers');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // Read until the first delta is visible: if the response were buffered, this would never
  // happen, because the provider only finishes after we release it below.
  while (!text.includes('"delta":"first"')) {
    const { done, value } = await reader.read();
    expect(done).toBe(false);
    text += decoder.decode(value, { stream: true });
  }
  expect(provider.ended).toBe(false);
  provider.release();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  expect(provider.ended).toBe(true);
  expect(text).toContain('"delta":" second"');
  expect(text).toContain('"type":"chat-finish"');
});
