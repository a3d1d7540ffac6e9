/**
 * The bench's client side: read an SSE body frame by frame as bytes arrive, noting
 * when the first byte and the first text token came, and check a Parlance chat
 * stream or a direct provider stream against what the script should produce.
 * Line handling follows the SSE spec's event-stream interpretation
 * (https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation).
 */
import { frameEventId, type Event } from '@parlance/protocol';
import type { RecordedRequest } from '@parlance/testing';

export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
}

/** Reads frames from a body; `onFirstByte` fires once, when the first chunk arrives. */
export async function* sseFrames(body: ReadableStream<Uint8Array>, onFirstByte: () => void): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let first = true;
  let frame: SseFrame = {};
  let hasField = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (first && value.byteLength > 0) {
        first = false;
        onFirstByte();
      }
      buffer += decoder.decode(value, { stream: true });
      let at: number;
      while ((at = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, at);
        buffer = buffer.slice(at + (buffer.startsWith('\r\n', at) ? 2 : 1));
        if (line === '') {
          if (hasField) yield frame;
          frame = {};
          hasField = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let value = colon < 0 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
        else continue;
        hasField = true;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

export interface StreamResult {
  ok: boolean;
  /** Why the stream does not count as complete. */
  problem?: string;
  /** From sending the request to the first body byte. */
  ttfbMs: number;
  /** From sending the request to the first non-empty text delta. */
  ttftMs: number;
  totalMs: number;
  /** Protocol events (via the server) or wire frames (direct). */
  frames: number;
  deltas: number;
}

function failed(problem: string, start: number): StreamResult {
  return { ok: false, problem, ttfbMs: NaN, ttftMs: NaN, totalMs: performance.now() - start, frames: 0, deltas: 0 };
}

export interface Expect {
  deltas: string[];
}

/**
 * POST /chat and read the whole stream. Complete means: 200 with an event stream;
 * ids `0..n-1` with no gap; every scripted delta in order; exactly one
 * `chat-finish`, 'completed', and it is the last frame; no `error` event.
 */
export async function serverChat(url: string, body: unknown, expect: Expect, signal: AbortSignal): Promise<StreamResult> {
  const start = performance.now();
  let ttfb = NaN;
  let ttft = NaN;
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), signal });
    if (res.status !== 200 || !res.body) return failed(`status ${res.status}: ${(await res.text()).slice(0, 200)}`, start);
    if (!res.headers.get('content-type')?.startsWith('text/event-stream')) return failed('not an event stream', start);
    const events: Event[] = [];
    let problem: string | undefined;
    let lastId: string | undefined;
    for await (const frame of sseFrames(res.body, () => (ttfb = performance.now() - start))) {
      if (frame.data === undefined) continue;
      const event = JSON.parse(frame.data) as Event;
      // The lean wire: most deltas carry no `id:` and no frame carries `event:`; readers number an id-less delta from the one before.
      const id = frameEventId(frame.id, event, lastId);
      lastId = id ?? lastId;
      if (!problem && id !== String(events.length)) problem = `frame ${events.length} has id ${id}`;
      if (event.type === 'text-delta' && event.delta !== '' && Number.isNaN(ttft)) ttft = performance.now() - start;
      events.push(event);
    }
    const totalMs = performance.now() - start;
    const deltas = events.filter((e) => e.type === 'text-delta').map((e) => (e.type === 'text-delta' ? e.delta : ''));
    const finishes = events.filter((e) => e.type === 'chat-finish');
    const errors = events.filter((e) => e.type === 'error');
    if (!problem && errors.length > 0) problem = `error event: ${JSON.stringify(errors[0])}`;
    if (!problem && deltas.length !== expect.deltas.length) problem = `${deltas.length} text deltas, expected ${expect.deltas.length}`;
    if (!problem && deltas.join('') !== expect.deltas.join('')) problem = 'the text differs from the script';
    if (!problem && finishes.length !== 1) problem = `${finishes.length} chat-finish events`;
    const last = events.at(-1);
    if (!problem && (last?.type !== 'chat-finish' || last.haltReason !== 'completed')) problem = `ends with ${JSON.stringify(last)}`;
    const result: StreamResult = { ok: !problem, ttfbMs: ttfb, ttftMs: ttft, totalMs, frames: events.length, deltas: deltas.length };
    if (problem) result.problem = problem;
    return result;
  } catch (error) {
    return failed(error instanceof Error ? `${error.name}: ${error.message}` : String(error), start);
  }
}

/**
 * The same request straight to the mock provider (Chat Completions streaming,
 * https://platform.openai.com/docs/api-reference/chat-streaming): complete means every
 * scripted `delta.content` in order and the closing `[DONE]`.
 */
export async function directChat(url: string, init: RequestInit, expect: Expect, signal: AbortSignal): Promise<StreamResult> {
  const start = performance.now();
  let ttfb = NaN;
  let ttft = NaN;
  try {
    const res = await fetch(url, { ...init, signal });
    if (res.status !== 200 || !res.body) return failed(`status ${res.status}: ${(await res.text()).slice(0, 200)}`, start);
    const deltas: string[] = [];
    let frames = 0;
    let done = false;
    for await (const frame of sseFrames(res.body, () => (ttfb = performance.now() - start))) {
      if (frame.data === undefined) continue;
      frames++;
      if (frame.data === '[DONE]') {
        done = true;
        continue;
      }
      const chunk = JSON.parse(frame.data) as { choices?: { delta?: { content?: string | null } }[] };
      const content = chunk.choices?.[0]?.delta?.content;
      if (typeof content === 'string' && content !== '') {
        if (Number.isNaN(ttft)) ttft = performance.now() - start;
        deltas.push(content);
      }
    }
    const totalMs = performance.now() - start;
    let problem: string | undefined;
    if (deltas.join('') !== expect.deltas.join('')) problem = `${deltas.length} content deltas, expected ${expect.deltas.length}`;
    else if (!done) problem = 'no [DONE]';
    const result: StreamResult = { ok: !problem, ttfbMs: ttfb, ttftMs: ttft, totalMs, frames, deltas: deltas.length };
    if (problem) result.problem = problem;
    return result;
  } catch (error) {
    return failed(error instanceof Error ? `${error.name}: ${error.message}` : String(error), start);
  }
}

/** A provider request sent straight from the bench: what the engine sent, without the server. */
export interface DirectRequest {
  url: string;
  init: RequestInit;
}

/**
 * One chat through the server to learn exactly what the engine sends upstream (the first
 * request the mock provider recorded), so the direct baseline sends the same.
 */
export async function probeDirectRequest(chatUrl: string, body: unknown, expect: Expect, requests: readonly RecordedRequest[], timeoutMs: number): Promise<DirectRequest> {
  const probe = await serverChat(chatUrl, body, expect, AbortSignal.timeout(timeoutMs));
  if (!probe.ok) throw new Error(`The probe chat did not complete: ${probe.problem}`);
  const sent = requests[0]!;
  return {
    url: sent.url,
    init: {
      method: 'POST',
      headers: Object.fromEntries(Object.entries(sent.headers).filter(([k]) => ['content-type', 'authorization', 'accept'].includes(k))),
      body: JSON.stringify(sent.body),
    },
  };
}
