// Amazon Bedrock through the mock runtime, which checks SigV4 by recomputing it with the AWS SDK's
// signer (or checks the Bedrock API key) and answers in event-stream framing encoded by the AWS SDK's
// codec; and the official @aws-sdk/client-bedrock-runtime against the same mock, to check the request
// body we encode against the SDK's own model of the API and our mock against the SDK.
import { BedrockRuntimeClient, ConverseStreamCommand, InvokeModelWithResponseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import type { Event, ModelRequest } from '@parlance/protocol';
import { type MockBedrockOptions, type MockScript, mockBedrockServer } from '@parlance/testing';
import { describe, expect, it } from 'vitest';
import { errorOf, PROMPT, run, textOf } from '../../../test/clouds.ts';
import { resolveModel } from '../../providers/resolve-model.ts';
import type { ProviderSettings } from '../../providers/types.ts';
import { type BedrockOptions, createBedrock } from './bedrock.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const SESSION = { ...CREDENTIALS, sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLETOKEN' };
const CLAUDE = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';
const NOVA = 'amazon.nova-pro-v1:0';

function setup(mock: Omit<MockBedrockOptions, 'script'> & { script?: MockScript }, options: BedrockOptions = {}, settings: ProviderSettings = {}) {
  const runtime = mockBedrockServer({ script: [{ text: 'Hello from Bedrock', usage: { inputTokens: 1_000, outputTokens: 100 } }], ...mock });
  const provider = createBedrock(options, { env: {}, retry: false, fetch: async (input, init) => runtime(new Request(input, init)), ...settings });
  return { runtime, provider };
}


describe('Amazon Bedrock', () => {
  it('Converse for a non-Anthropic model: SigV4 from the AWS variables with a session token, the region host, the model id encoded in the path', async () => {
    const { runtime, provider } = setup({ region: 'eu-central-1', credentials: SESSION }, {}, {
      env: { AWS_REGION: 'eu-central-1', AWS_ACCESS_KEY_ID: SESSION.accessKeyId, AWS_SECRET_ACCESS_KEY: SESSION.secretAccessKey, AWS_SESSION_TOKEN: SESSION.sessionToken },
    });
    const model = provider.model(NOVA);
    expect(model.dialect).toBe('bedrock_converse');
    const { all } = await run(model.stream({ ...PROMPT, system: 'Be brief.', maxOutputTokens: 300, temperature: 0.2 }));
    expect(textOf(all)).toBe('Hello from Bedrock');
    const sent = runtime.requests[0]!;
    expect(sent.url).toBe('https://bedrock-runtime.eu-central-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse-stream');
    expect(sent.headers['x-amz-security-token']).toBe(SESSION.sessionToken);
    expect(sent.body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 300, temperature: 0.2 },
    });
    const finish = all.at(-1) as Extract<Event, { type: 'finish' }>;
    expect(finish).toMatchObject({ type: 'finish', finishReason: 'stop', usage: { inputTokens: 1_000, outputTokens: 100 } });
    expect(finish.usage.cost).toBeGreaterThan(0);
  });

  it('InvokeModelWithResponseStream for an Anthropic model (a cross-region profile): the Messages body with anthropic_version, no model or stream', async () => {
    const { runtime, provider } = setup({ region: 'us-east-1', credentials: CREDENTIALS }, { region: 'us-east-1', credentials: CREDENTIALS });
    const model = provider.model(CLAUDE);
    expect(model.dialect).toBe('anthropic_messages');
    const { all } = await run(model.stream({ ...PROMPT, maxOutputTokens: 500 }));
    expect(textOf(all)).toBe('Hello from Bedrock');
    const sent = runtime.requests[0]!;
    expect(sent.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream');
    const body = sent.body as Record<string, unknown>;
    expect(body.anthropic_version).toBe('bedrock-2023-05-31');
    expect(body.max_tokens).toBe(500);
    expect(body).not.toHaveProperty('model');
    expect(body).not.toHaveProperty('stream');
    expect(all.at(-1)).toMatchObject({ type: 'finish', finishReason: 'stop' });
  });

  it('Converse tool calls and signed reasoning decode, and go back in the next request', async () => {
    const { runtime, provider } = setup({
      region: 'us-east-1',
      credentials: CREDENTIALS,
      script: [{ reasoning: 'Weather needs a tool.', reasoningSignature: 'sig-1', toolCalls: [{ id: 'tooluse_1', name: 'weather', input: { city: 'Oslo' } }] }, { text: '21 °C' }],
    }, { region: 'us-east-1', credentials: CREDENTIALS, api: 'converse' });
    const model = provider.model(CLAUDE);
    const tools = [{ name: 'weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }];
    const first = await run(model.stream({ ...PROMPT, tools, thinking: { budgetTokens: 2_048 } }));
    expect(first.response.finishReason).toBe('tool-calls');
    const parts = first.response.message.parts;
    expect(parts).toEqual([
      expect.objectContaining({ type: 'reasoning', text: 'Weather needs a tool.', signature: 'sig-1' }),
      expect.objectContaining({ type: 'tool-call', id: 'tooluse_1', name: 'weather', input: { city: 'Oslo' } }),
    ]);
    const firstBody = runtime.requests[0]!.body as Record<string, any>;
    expect(firstBody.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2_048 } });
    expect(firstBody.toolConfig.tools[0]).toEqual({ toolSpec: { name: 'weather', description: 'Weather', inputSchema: { json: tools[0]!.inputSchema } } });

    const second = await run(
      model.stream({
        ...PROMPT,
        tools,
        messages: [
          ...PROMPT.messages,
          { id: 'a1', role: 'assistant', parts },
          { id: 't1', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 'tooluse_1', name: 'weather', output: { tempC: 21 } }] },
        ],
      }),
    );
    expect(textOf(second.all)).toBe('21 °C');
    const body = runtime.requests[1]!.body as Record<string, any>;
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Hi' }] },
      {
        role: 'assistant',
        content: [
          { reasoningContent: { reasoningText: { text: 'Weather needs a tool.', signature: 'sig-1' } } },
          { toolUse: { toolUseId: 'tooluse_1', name: 'weather', input: { city: 'Oslo' } } },
        ],
      },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ json: { tempC: 21 } }], status: 'success' } }] },
    ]);
  });

  it('a credentials function is called for every request (rotation, STS)', async () => {
    let calls = 0;
    const { runtime, provider } = setup({ region: 'us-west-2', credentials: SESSION }, { region: 'us-west-2', credentials: async () => {
      calls++;
      return SESSION;
    } });
    await run(provider.model(NOVA).stream(PROMPT));
    await run(provider.model(NOVA).stream(PROMPT));
    expect(calls).toBe(2);
    expect(runtime.requests).toHaveLength(2);
  });

  it.each([
    ['a wrong secret', { ...CREDENTIALS, secretAccessKey: 'not-the-secret' }, /signature we calculated does not match/],
    ['another key id', { ...CREDENTIALS, accessKeyId: 'AKIDOTHER' }, /security token included in the request is invalid/],
    ['a missing session token', CREDENTIALS, /security token included in the request is invalid/],
  ] as const)('%s fails as Bedrock answers it: 403 -> authentication, not retried', async (_name, credentials, message) => {
    const expected = _name === 'a missing session token' ? SESSION : CREDENTIALS;
    const { runtime, provider } = setup({ region: 'us-east-1', credentials: expected }, { region: 'us-east-1', credentials }, { retry: { maxRetries: 3 }, sleep: async () => {} });
    const error = errorOf((await run(provider.model(NOVA).stream(PROMPT))).all);
    expect(error).toMatchObject({ code: 'authentication', status: 403, retryable: false });
    expect(error!.message).toMatch(message);
    expect(error!.message).not.toContain(credentials.secretAccessKey);
    expect(runtime.requests).toHaveLength(1);
  });

  it('a signature made for another region is refused by the verifier', async () => {
    const { provider } = setup({ region: 'us-east-1', credentials: CREDENTIALS }, { region: 'us-west-2', credentials: CREDENTIALS, endpoint: 'https://bedrock-runtime.us-east-1.amazonaws.com' });
    expect(errorOf((await run(provider.model(NOVA).stream(PROMPT))).all)).toMatchObject({ code: 'authentication', status: 403, message: expect.stringMatching(/scoped to a valid region/) });
  });

  it('a Bedrock API key (AWS_BEARER_TOKEN_BEDROCK) is sent as a bearer token instead of signing', async () => {
    const { runtime, provider } = setup({ region: 'us-east-1', apiKey: 'bedrock-api-key-0123456789' }, {}, { env: { AWS_REGION: 'us-east-1', AWS_BEARER_TOKEN_BEDROCK: 'bedrock-api-key-0123456789', AWS_ACCESS_KEY_ID: 'AKIDIGNORED', AWS_SECRET_ACCESS_KEY: 'ignored' } });
    expect(textOf((await run(provider.model(CLAUDE).stream(PROMPT))).all)).toBe('Hello from Bedrock');
    expect(runtime.requests[0]!.headers.authorization).toBe('Bearer bedrock-api-key-0123456789');
    expect(runtime.requests[0]!.headers['x-amz-date']).toBeUndefined();
  });

  it('throttling before the stream is retried with backoff (429 ThrottlingException), then succeeds', async () => {
    const waits: number[] = [];
    const { runtime, provider } = setup(
      { region: 'us-east-1', credentials: CREDENTIALS, script: (_r, call) => (call === 0 ? { error: { code: 'rate_limited', message: 'Too many requests, please wait before trying again.' } } : { text: 'after the wait' }) },
      { region: 'us-east-1', credentials: CREDENTIALS },
      { retry: { maxRetries: 2 }, sleep: async (ms) => void waits.push(ms) },
    );
    expect(textOf((await run(provider.model(NOVA).stream(PROMPT))).all)).toBe('after the wait');
    expect(runtime.requests).toHaveLength(2);
    expect(waits).toHaveLength(1);
    // Each retry is signed again (a fresh date), so a long backoff never sends an expired signature.
    expect(runtime.requests[1]!.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });

  it.each([
    ['converse', NOVA],
    ['invoke', CLAUDE],
  ])('a throttlingException mid-stream (%s) is a retryable rate_limited error after what arrived', async (_api, modelId) => {
    const { provider } = setup({ region: 'us-east-1', credentials: CREDENTIALS, script: [{ text: 'partial answer here', error: { code: 'rate_limited', message: 'Too many tokens', afterEvents: 3 } }] }, { region: 'us-east-1', credentials: CREDENTIALS });
    const { all } = await run(provider.model(modelId).stream(PROMPT));
    expect(textOf(all).length).toBeGreaterThan(0);
    expect(errorOf(all)).toMatchObject({ code: 'rate_limited', retryable: true });
    expect(errorOf(all)!.message).toMatch(/throttlingException: Too many tokens/);
    expect(all.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it.each([
    ['no credentials at all', {}, { AWS_REGION: 'us-east-1' }, 'authentication', /AWS_ACCESS_KEY_ID/],
    ['no region', { credentials: CREDENTIALS }, {}, 'invalid_request', /AWS_REGION/],
    ['a region that is not one', { region: 'us-east-1.evil.com/x', credentials: CREDENTIALS }, {}, 'invalid_request', /region/],
    ['a region from the environment with a slash', { credentials: CREDENTIALS }, { AWS_REGION: 'a/b' }, 'invalid_request', /region/],
    ['a credentials function that throws', { region: 'us-east-1', credentials: () => Promise.reject(new Error('SSO session expired')) }, {}, 'authentication', /SSO session expired/],
    ['credentials without a secret', { region: 'us-east-1', credentials: { accessKeyId: 'AKID', secretAccessKey: '' } }, {}, 'authentication', /secretAccessKey/],
  ] as const)('%s: a typed error before any request', async (_name, options, env, code, message) => {
    let fetched = 0;
    const provider = createBedrock(options as BedrockOptions, {
      env: env as Record<string, string>,
      retry: false,
      fetch: async () => {
        fetched++;
        return new Response('{}');
      },
    });
    const error = errorOf((await run(provider.model(NOVA).stream(PROMPT))).all);
    expect(error).toMatchObject({ code });
    expect(error!.message).toMatch(message);
    expect(fetched).toBe(0);
  });

  it('an inference profile ARN goes in the path as one encoded segment', async () => {
    const arn = 'arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.amazon.nova-pro-v1:0';
    const { runtime, provider } = setup({ region: 'us-east-1', credentials: CREDENTIALS }, { region: 'us-east-1', credentials: CREDENTIALS });
    expect(textOf((await run(provider.model(arn).stream(PROMPT))).all)).toBe('Hello from Bedrock');
    expect(runtime.requests[0]!.model).toBe(arn);
    expect(runtime.requests[0]!.path).toBe(`/model/${encodeURIComponent(arn)}/converse-stream`);
  });

  it('resolves `bedrock:<model>` like any provider', async () => {
    const { provider } = setup({ region: 'us-east-1', credentials: CREDENTIALS }, { region: 'us-east-1', credentials: CREDENTIALS });
    const model = resolveModel(`bedrock:${CLAUDE}`, { providers: { bedrock: provider } });
    expect(textOf((await run(model.stream(PROMPT))).all)).toBe('Hello from Bedrock');
  });
});

describe('the official AWS SDK (@aws-sdk/client-bedrock-runtime) against the same mock runtime', () => {
  function client(runtime: ReturnType<typeof mockBedrockServer>) {
    return new BedrockRuntimeClient({
      region: 'us-east-1',
      credentials: SESSION,
      requestHandler: {
        async handle(request: { method: string; protocol: string; hostname: string; path: string; headers: Record<string, string>; body?: unknown }) {
          const response = await runtime(new Request(`${request.protocol}//${request.hostname}${request.path}`, { method: request.method, headers: request.headers, body: request.body as string }));
          const headers: Record<string, string> = {};
          response.headers.forEach((value, key) => {
            headers[key] = value;
          });
          return { response: { statusCode: response.status, headers, body: response.body } };
        },
      } as never,
    });
  }

  it('ConverseStream: the SDK serializes our encoded body to the same JSON (every field is in its model), signs so our verifier accepts it, and reads our stream', async () => {
    const runtime = mockBedrockServer({ region: 'us-east-1', credentials: SESSION, script: [{ text: 'same words', toolCalls: [{ id: 't1', name: 'weather', input: { city: 'Oslo' } }] }] });
    const ours = createBedrock({ region: 'us-east-1', credentials: SESSION }, { env: {}, retry: false, fetch: async (input, init) => runtime(new Request(input, init)) });
    const tools = [{ name: 'weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
    const request: Omit<ModelRequest, 'model'> = {
      system: 'Be brief.',
      messages: [
        { id: 'u', role: 'user', parts: [{ type: 'text', text: 'Weather?' }, { type: 'file', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, { type: 'file', mediaType: 'application/pdf', filename: 'report.v2.pdf', data: 'JVBERi0=' }] },
        { id: 'a', role: 'assistant', parts: [{ type: 'tool-call', id: 't0', name: 'weather', input: { city: 'Rome' } }] },
        { id: 't', role: 'tool', parts: [{ type: 'tool-result', toolCallId: 't0', name: 'weather', output: 'sunny', isError: true }] },
      ],
      tools,
      toolChoice: { type: 'tool', name: 'weather' },
      maxOutputTokens: 200,
      temperature: 0.5,
      topP: 0.9,
      stop: ['END'],
      cache: {},
    };
    const { all } = await run(ours.model(NOVA).stream(request));
    expect(errorOf(all)).toBeUndefined();
    const mine = runtime.requests[0]!.body as Record<string, any>;

    const sdk = client(runtime);
    // The SDK takes bytes as Uint8Array and base64-encodes them itself: give it our bytes decoded.
    const input = JSON.parse(JSON.stringify(mine), (key, value) => (key === 'bytes' && typeof value === 'string' ? new Uint8Array(Buffer.from(value, 'base64')) : value));
    const output = await sdk.send(new ConverseStreamCommand({ modelId: NOVA, ...input }));
    const seen: string[] = [];
    for await (const event of output.stream!) seen.push(Object.keys(event).find((k) => (event as unknown as Record<string, unknown>)[k] !== undefined)!);
    const theirs = runtime.requests[1]!;
    expect(theirs.body).toEqual(mine);
    expect(theirs.path).toBe(runtime.requests[0]!.path);
    expect(seen).toEqual(expect.arrayContaining(['messageStart', 'contentBlockDelta', 'contentBlockStart', 'contentBlockStop', 'messageStop', 'metadata']));
  });

  it('InvokeModelWithResponseStream: the SDK signs the same request our verifier accepts and reads our chunks', async () => {
    const runtime = mockBedrockServer({ region: 'us-east-1', credentials: SESSION, script: [{ text: 'native' }] });
    const sdk = client(runtime);
    const output = await sdk.send(
      new InvokeModelWithResponseStreamCommand({ modelId: CLAUDE, contentType: 'application/json', body: JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] }) }),
    );
    let text = '';
    for await (const event of output.body!) {
      const json = JSON.parse(new TextDecoder().decode(event.chunk!.bytes));
      if (json.type === 'content_block_delta') text += json.delta.text;
    }
    expect(text).toBe('native');
  });
});
