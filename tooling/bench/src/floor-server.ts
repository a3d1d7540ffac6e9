/**
 * The floor: the least a chat server can do per streamed delta, measured in the same run as
 * Parlance and the AI SDK. A bare `node:http` server that, per chat, POSTs to the same mock
 * upstream (Chat Completions or Messages wire), and per upstream SSE event does three things:
 * JSON.parse the payload, JSON.stringify one event (`{"type":"text-delta","delta":...}`) and
 * write it to the response socket. No framework, no validation, no run store, no signing, no
 * thread: a tool round trip runs the tool and sends one second request, nothing more.
 * What Parlance costs above this is what its features cost.
 *
 * @example
 * const server = createServer(floorHandler({ openai: 'http://127.0.0.1:1234', anthropic: 'http://127.0.0.1:1235', key: 'sk' }));
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

interface Upstreams {
  openai: string;
  anthropic: string;
  key: string;
}

interface ToolCall {
  id: string;
  name: string;
  args: string;
}

async function readJson(request: IncomingMessage): Promise<{ model: string; wire: 'openai' | 'anthropic'; messages: { role: string; text: string }[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

/** Reads an upstream SSE body: per `data:` line, `onData(JSON.parse(line))` (the held partial line is one short event). */
async function eachEvent(body: ReadableStream<Uint8Array>, onData: (payload: Record<string, any>) => void): Promise<void> {
  const decoder = new TextDecoder();
  let held = '';
  for await (const chunk of body) {
    const lines = (held + decoder.decode(chunk, { stream: true })).split('\n');
    held = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('data: ') && line !== 'data: [DONE]') onData(JSON.parse(line.slice(6)));
  }
}

/** One upstream call, its text streamed to `response`; returns the tool calls it asked for. */
async function relay(upstreams: Upstreams, wire: 'openai' | 'anthropic', model: string, messages: unknown[], response: ServerResponse): Promise<ToolCall[]> {
  const openai = wire === 'openai';
  const upstream = await fetch(openai ? `${upstreams.openai}/v1/chat/completions` : `${upstreams.anthropic}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${upstreams.key}`, 'x-api-key': upstreams.key, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, stream: true, max_tokens: 100_000, messages }),
  });
  if (!upstream.body) throw new Error('The upstream sent no body');
  const calls: ToolCall[] = [];
  const write = (delta: string) => response.write(`data: ${JSON.stringify({ type: 'text-delta', delta })}\n\n`);
  await eachEvent(upstream.body, (payload) => {
    if (openai) {
      const delta = payload.choices?.[0]?.delta;
      if (typeof delta?.content === 'string' && delta.content !== '') write(delta.content);
      for (const call of delta?.tool_calls ?? []) {
        const at = (calls[call.index] ??= { id: call.id ?? '', name: call.function?.name ?? '', args: '' });
        at.args += call.function?.arguments ?? '';
      }
    } else if (payload.type === 'content_block_delta' && payload.delta?.type === 'text_delta') write(payload.delta.text);
    else if (payload.type === 'content_block_start' && payload.content_block?.type === 'tool_use') calls.push({ id: payload.content_block.id, name: payload.content_block.name, args: '' });
    else if (payload.type === 'content_block_delta' && payload.delta?.type === 'input_json_delta') calls.at(-1)!.args += payload.delta.partial_json;
  });
  return calls;
}

/** The floor server's request handler (POST any path: `{ model, wire, messages: [{ role, text }] }`). */
export function floorHandler(upstreams: Upstreams, tool: (input: { city: string }) => Promise<unknown>) {
  return (request: IncomingMessage, response: ServerResponse) => {
    void (async () => {
      try {
        const { model, wire, messages } = await readJson(request);
        response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        const sent: unknown[] = messages.map((m) => ({ role: m.role, content: m.text }));
        const calls = await relay(upstreams, wire, model, sent, response);
        if (calls.length > 0) {
          // The tool round trip: run each call, send the results back once.
          const results = await Promise.all(calls.map(async (call) => ({ call, output: JSON.stringify(await tool(JSON.parse(call.args || '{}'))) })));
          if (wire === 'openai') {
            sent.push({ role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args } })) });
            for (const r of results) sent.push({ role: 'tool', tool_call_id: r.call.id, content: r.output });
          } else {
            sent.push({ role: 'assistant', content: calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.args || '{}') })) });
            sent.push({ role: 'user', content: results.map((r) => ({ type: 'tool_result', tool_use_id: r.call.id, content: r.output })) });
          }
          await relay(upstreams, wire, model, sent, response);
        }
        response.end('data: {"type":"finish"}\n\n');
      } catch (error) {
        if (!response.headersSent) response.writeHead(500);
        response.end(String(error));
      }
    })();
  };
}
