// The three clouds inside workerd (the Workers runtime), routed by the gateway like any provider: SigV4
// signed with Web Crypto (aws4fetch) and checked by the AWS SDK's signer, the Bedrock event stream
// decoded as bytes arrive, a Vertex service-account JWT signed with jose and verified by the token
// endpoint with the public key, and an Azure key. Each mock is called through the provider's `fetch`.
import { decodeStream } from '@parlance/dialects';
import { createAzure } from '@parlance/engine/azure';
import { createBedrock } from '@parlance/engine/bedrock';
import { createVertex } from '@parlance/engine/vertex';
import { collectResponse } from '@parlance/protocol';
import { expect, it } from 'vitest';
// The mocks' modules alone: the testing index also exports the Node-only socket server.
import { mockAzureServer } from '../../testing/src/clouds/azure.ts';
import { mockBedrockServer } from '../../testing/src/clouds/bedrock.ts';
import { mockGoogleTokenEndpoint, mockVertexServer } from '../../testing/src/clouds/vertex.ts';
import { createGateway, staticKeys } from '../src/gateway/index.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token-example' };
const TOKEN_URI = 'https://oauth2.googleapis.com/token';

function pem(label: string, der: ArrayBuffer): string {
  const base64 = btoa(String.fromCharCode(...new Uint8Array(der)));
  return `-----BEGIN ${label}-----\n${base64.replace(/(.{64})/g, '$1\n')}\n-----END ${label}-----\n`;
}

async function gateway() {
  const pair = (await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify'])) as CryptoKeyPair;
  const privateKey = pem('PRIVATE KEY', (await crypto.subtle.exportKey('pkcs8', pair.privateKey)) as ArrayBuffer);
  const publicKey = pem('PUBLIC KEY', (await crypto.subtle.exportKey('spki', pair.publicKey)) as ArrayBuffer);
  const email = 'parlance@acme-prod.iam.gserviceaccount.com';

  const bedrockRuntime = mockBedrockServer({ region: 'us-east-1', credentials: CREDENTIALS, script: [{ text: ['Hello ', 'from ', 'Bedrock.'], usage: { inputTokens: 5, outputTokens: 3 } }] });
  const google = mockGoogleTokenEndpoint({ clientEmail: email, publicKey, tokenURI: TOKEN_URI });
  const vertexApi = mockVertexServer({ project: 'acme-prod', location: 'us-central1', tokens: google.issued, script: [{ text: ['Hello ', 'from ', 'Vertex.'] }] });
  const azureResource = mockAzureServer({ dialect: 'openai_responses', apiKey: 'azure-key-0123456789', script: [{ text: ['Hello ', 'from ', 'Azure.'] }] });

  const bedrock = createBedrock({ region: 'us-east-1', credentials: CREDENTIALS }, { fetch: (input, init) => bedrockRuntime(new Request(input, init)) });
  const vertex = createVertex(
    { project: 'acme-prod', location: 'us-central1', serviceAccount: { client_email: email, private_key: privateKey, token_uri: TOKEN_URI } },
    {
      fetch: (input, init) => {
        const request = new Request(input, init);
        return request.url === TOKEN_URI ? google(request) : vertexApi(request);
      },
    },
  );
  const azure = createAzure({ endpoint: 'https://contoso.openai.azure.com', apiKey: 'azure-key-0123456789' }, { fetch: (input, init) => azureResource(new Request(input, init)) });
  const app = createGateway({
    routes: { claude: 'bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0', nova: 'bedrock:amazon.nova-pro-v1:0', gemini: 'vertex:gemini-2.5-flash', gpt: 'azure:gpt-5-mini' },
    providers: { providers: { bedrock, vertex, azure } },
    authorize: staticKeys({ 'gw-key-0123456789abcdef': { id: 'edge' } }),
  });
  return { app, bedrockRuntime, google, vertexApi, azureResource };
}

async function ask(app: Awaited<ReturnType<typeof gateway>>['app'], model: string): Promise<string> {
  const response = await app.request('/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: 'Bearer gw-key-0123456789abcdef', 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(response.status).toBe(200);
  const collected = await collectResponse(decodeStream('openai_completions', response.body!));
  return collected.message.parts.flatMap((p) => (p.type === 'text' ? [p.text] : [])).join('');
}

it('routes to Bedrock (InvokeModel and Converse), Vertex and Azure inside workerd, each authenticated as its cloud checks it', async () => {
  expect((globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent).toBe('Cloudflare-Workers');
  const { app, bedrockRuntime, google, vertexApi, azureResource } = await gateway();
  expect(await ask(app, 'claude')).toBe('Hello from Bedrock.');
  expect(await ask(app, 'nova')).toBe('Hello from Bedrock.');
  expect(bedrockRuntime.requests.map((r) => r.path)).toEqual([
    '/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream',
    '/model/amazon.nova-pro-v1%3A0/converse-stream',
  ]);
  expect(await ask(app, 'gemini')).toBe('Hello from Vertex.');
  expect(await ask(app, 'gemini')).toBe('Hello from Vertex.');
  expect(google.exchanges()).toBe(1);
  expect(vertexApi.requests).toHaveLength(2);
  expect(await ask(app, 'gpt')).toBe('Hello from Azure.');
  expect(azureResource.requests[0]!.url).toBe('https://contoso.openai.azure.com/openai/v1/responses');
});
