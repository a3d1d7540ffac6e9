/**
 * A mock Amazon Bedrock runtime: checks SigV4 (recomputed with the AWS SDK's signer) or a Bedrock API
 * key the way Bedrock does, and answers ConverseStream and InvokeModelWithResponseStream (Anthropic's
 * Messages events in `chunk.bytes`) from a script, in AWS event-stream framing encoded by the AWS SDK's codec.
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_ConverseStream.html
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 */
import type { ErrorCode, Event } from '@parlance/protocol';
import type { MockProviderHandler, MockScript, RecordedRequest } from '../mock-server/handler.ts';
import { turnToEvents, type ScriptedTurn } from '../script.ts';
import { encodeEventFrames } from '../wire/encode.ts';
import { encodeEventStreamMessage } from './event-stream-encoder.ts';
import { verifySigV4, type SigV4VerifierOptions } from './sigv4-verifier.ts';

/**
 * What the mock accepts: SigV4 credentials for a region, a Bedrock API key, or both.
 *
 * @example
 * const options: MockBedrockOptions = { region: 'us-east-1', credentials: { accessKeyId: 'AKID', secretAccessKey: 'secret' }, script: [{ text: 'Hi' }] };
 */
export interface MockBedrockOptions {
  script: MockScript;
  region: string;
  credentials?: SigV4VerifierOptions['credentials'];
  apiKey?: string;
  /** The server's clock, for the 15-minute signature window (default Date.now). */
  now?: () => number;
}

/** HTTP status and Bedrock exception name per error code (what Bedrock answers before streaming). */
const HTTP_ERRORS: Partial<Record<ErrorCode, [number, string]>> = {
  rate_limited: [429, 'ThrottlingException'],
  overloaded: [503, 'ServiceUnavailableException'],
  invalid_request: [400, 'ValidationException'],
  not_found: [404, 'ResourceNotFoundException'],
  permission: [403, 'AccessDeniedException'],
  timeout: [408, 'ModelTimeoutException'],
};

/** Stream exceptions per error code (what Bedrock sends mid-stream). */
const STREAM_EXCEPTIONS: Partial<Record<ErrorCode, string>> = {
  rate_limited: 'throttlingException',
  overloaded: 'serviceUnavailableException',
  invalid_request: 'validationException',
  timeout: 'modelTimeoutException',
};

function fail(status: number, type: string, message: string): Response {
  return Response.json({ message }, { status, headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/` } });
}

function base64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

const STOP: Record<string, string> = { stop: 'end_turn', length: 'max_tokens', 'tool-calls': 'tool_use', 'content-filter': 'content_filtered' };

/**
 * Protocol events -> ConverseStream events, as Bedrock sends them (type and payload per message).
 *
 * @example
 * converseStreamEvents(turnToEvents({ text: 'Hi' })).map(([type]) => type); // ['messageStart', 'contentBlockDelta', ...]
 */
export function converseStreamEvents(events: readonly Event[]): [type: string, payload: Record<string, unknown>][] {
  const out: [string, Record<string, unknown>][] = [];
  const index = new Map<string, number>();
  const at = (id: string) => {
    if (!index.has(id)) index.set(id, index.size);
    return index.get(id)!;
  };
  for (const event of events) {
    switch (event.type) {
      case 'message-start':
        out.push(['messageStart', { role: 'assistant' }]);
        break;
      case 'text-delta':
        out.push(['contentBlockDelta', { contentBlockIndex: at(event.id), delta: { text: event.delta } }]);
        break;
      case 'reasoning-delta':
        out.push(['contentBlockDelta', { contentBlockIndex: at(event.id), delta: { reasoningContent: { text: event.delta } } }]);
        break;
      case 'reasoning-end':
        if (event.signature) out.push(['contentBlockDelta', { contentBlockIndex: at(event.id), delta: { reasoningContent: { signature: event.signature } } }]);
        out.push(['contentBlockStop', { contentBlockIndex: at(event.id) }]);
        break;
      case 'text-end':
        out.push(['contentBlockStop', { contentBlockIndex: at(event.id) }]);
        break;
      case 'tool-call-start':
        out.push(['contentBlockStart', { contentBlockIndex: at(event.id), start: { toolUse: { toolUseId: event.id, name: event.name } } }]);
        break;
      case 'tool-call-delta':
        out.push(['contentBlockDelta', { contentBlockIndex: at(event.id), delta: { toolUse: { input: event.delta } } }]);
        break;
      case 'tool-call-end':
        out.push(['contentBlockStop', { contentBlockIndex: at(event.id) }]);
        break;
      case 'finish': {
        out.push(['messageStop', { stopReason: STOP[event.finishReason] ?? 'end_turn' }]);
        const usage = { inputTokens: event.usage.inputTokens ?? 0, outputTokens: event.usage.outputTokens ?? 0 };
        out.push(['metadata', { usage: { ...usage, totalTokens: usage.inputTokens + usage.outputTokens }, metrics: { latencyMs: 1 } }]);
        break;
      }
      default:
        break;
    }
  }
  return out;
}

/** Anthropic's Messages events for a turn, each as InvokeModelWithResponseStream's `chunk` payload. */
function invokeChunks(events: readonly Event[], model: string): Record<string, unknown>[] {
  const frames = encodeEventFrames('anthropic_messages', events, { model }).flat().join('');
  return frames
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => ({ bytes: base64(line.slice('data: '.length)) }));
}


/**
 * A mock Bedrock runtime as a fetch handler, with its recorded requests.
 *
 * @example
 * const runtime = mockBedrockServer({ region: 'us-east-1', credentials, script: [{ text: 'Hi' }] });
 * const bedrock = createBedrock({ region: 'us-east-1', credentials }, { fetch: async (input, init) => runtime(new Request(input, init)) });
 */
export function mockBedrockServer(options: MockBedrockOptions): MockProviderHandler {
  const requests: RecordedRequest[] = [];
  let calls = 0;

  const handler = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const body = await request.text();
    const headers: Record<string, string> = {};
    request.headers.forEach((value, key) => {
      headers[key] = value;
    });
    let parsed: unknown = body;
    try {
      parsed = JSON.parse(body);
    } catch {}
    const route = /^\/model\/([^/]+)\/(converse-stream|invoke-with-response-stream)$/.exec(url.pathname);
    const record: RecordedRequest = { method: request.method, url: request.url, path: url.pathname + url.search, headers, body: parsed };
    if (route) record.model = decodeURIComponent(route[1]!);
    requests.push(record);

    const bearer = /^Bearer (.+)$/.exec(request.headers.get('authorization') ?? '')?.[1];
    if (bearer !== undefined) {
      if (options.apiKey === undefined || bearer !== options.apiKey) return fail(403, 'AccessDeniedException', 'Authentication failed: Please make sure your API Key is valid.');
    } else {
      if (!options.credentials) return fail(403, 'AccessDeniedException', 'Missing Authentication Token');
      const problem = await verifySigV4(request, body, { credentials: options.credentials, region: options.region, service: 'bedrock', now: options.now });
      if (problem) return fail(403, problem.startsWith('The request signature') ? 'InvalidSignatureException' : 'UnrecognizedClientException', problem);
    }
    if (request.method !== 'POST' || !route) return fail(404, 'UnknownOperationException', `No operation at ${request.method} ${url.pathname}`);
    const call = calls++;
    const turn: ScriptedTurn = typeof options.script === 'function' ? options.script(record, call) : options.script[Math.min(call, options.script.length - 1)]!;
    const failure = turn.error;
    if (failure && failure.afterEvents === undefined) {
      const [status, type] = HTTP_ERRORS[failure.code as ErrorCode] ?? [500, 'InternalServerException'];
      return fail(status, type, failure.message);
    }
    const events = turnToEvents(turn, call);
    const kept = failure ? events.slice(0, failure.afterEvents) : events;
    const messages: Uint8Array[] =
      route[2] === 'converse-stream'
        ? converseStreamEvents(kept).map(([type, payload]) => encodeEventStreamMessage('event', type, { ...payload, p: 'abcdefgh' }))
        : invokeChunks(kept, record.model ?? 'model').map((chunk) => encodeEventStreamMessage('event', 'chunk', { ...chunk, p: 'abcdefgh' }));
    if (failure) {
      messages.push(encodeEventStreamMessage('exception', STREAM_EXCEPTIONS[failure.code as ErrorCode] ?? 'internalServerException', { message: failure.message }));
    }
    let next = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (next < messages.length) controller.enqueue(messages[next++]!);
        else controller.close();
      },
    });
    return new Response(stream, { status: 200, headers: { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-requestid': `req-${call}` } });
  };

  return Object.assign(handler, {
    requests,
    reset() {
      requests.length = 0;
      calls = 0;
    },
  });
}
