// What the clouds cost: SigV4 signing per request (aws4fetch over Web Crypto; with the provider's
// signing-key cache and without it), a cached Vertex access token per request and one JWT signature
// (the exchange's own cost, paid once an hour), and the Worker bundle with and without each cloud
// (esbuild, minified, gzip level 9). Run: pnpm --filter @parlance/engine exec tsx bench/clouds.bench.ts
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { SignJWT, importPKCS8 } from 'jose';
import { createSigningKeyCache, signAwsRequest } from '../src/clouds/bedrock/sigv4.ts';
import { serviceAccountTokens } from '../src/clouds/vertex/service-account.ts';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE' };
const BODY = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hello '.repeat(500) }] }], inferenceConfig: { maxTokens: 1024 } });
const REQUEST = { method: 'POST', url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.nova-pro-v1%3A0/converse-stream', headers: { 'content-type': 'application/json', accept: 'application/vnd.amazon.eventstream' }, body: BODY };

async function perOp(name: string, runs: number, fn: () => Promise<unknown>): Promise<void> {
  for (let i = 0; i < 200; i++) await fn();
  const times: number[] = [];
  for (let round = 0; round < 5; round++) {
    const start = performance.now();
    for (let i = 0; i < runs; i++) await fn();
    times.push(((performance.now() - start) * 1000) / runs);
  }
  times.sort((a, b) => a - b);
  console.log(`${name.padEnd(58)} median ${times[2]!.toFixed(1)} µs/request (runs of ${runs}, 5 rounds)`);
}

async function gzipped(contents: string): Promise<number> {
  const result = await build({
    stdin: { contents, resolveDir: join(import.meta.dirname, '../src'), loader: 'ts' },
    bundle: true,
    minify: true,
    platform: 'browser',
    conditions: ['workerd', 'worker', 'browser'],
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  return gzipSync(result.outputFiles[0]!.contents, { level: 9 }).length;
}

const cache = createSigningKeyCache();
await perOp('SigV4 sign, 3 KB body, signing key cached (the provider)', 2_000, () => signAwsRequest(REQUEST, { credentials: CREDENTIALS, region: 'us-east-1', service: 'bedrock', cache }));
await perOp('SigV4 sign, 3 KB body, no key cache', 2_000, () => signAwsRequest(REQUEST, { credentials: CREDENTIALS, region: 'us-east-1', service: 'bedrock' }));

const pair = generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
const key = await importPKCS8(pair.privateKey, 'RS256');
await perOp('Vertex service-account JWT (RS256) sign, once per token', 200, () => new SignJWT({ scope: 'x' }).setProtectedHeader({ alg: 'RS256' }).setIssuer('a@b').setAudience('t').setIssuedAt().setExpirationTime('1h').sign(key));
const tokens = serviceAccountTokens(
  { client_email: 'a@b', private_key: pair.privateKey, token_uri: 'https://oauth2.test/token' },
  { fetch: async () => Response.json({ access_token: 'ya29.x', expires_in: 3600 }) },
);
await perOp('Vertex access token from the cache', 20_000, () => tokens.get());

const quickStart = "export { createEngine } from './index.ts';";
const base = await gzipped(quickStart);
console.log(`\nWorker bundle (createEngine), gzipped: ${(base / 1024).toFixed(1)} KB`);
for (const cloud of ['azure', 'bedrock', 'vertex']) {
  const size = await gzipped(`${quickStart}\nexport * from './clouds/${cloud}/index.ts';`);
  console.log(`  + @parlance/engine/${cloud.padEnd(8)} ${(size / 1024).toFixed(1)} KB (+${((size - base) / 1024).toFixed(1)} KB)`);
}
const all = await gzipped(`${quickStart}\nexport * from './clouds/azure/index.ts';\nexport * from './clouds/bedrock/index.ts';\nexport * from './clouds/vertex/index.ts';`);
console.log(`  + all three clouds          ${(all / 1024).toFixed(1)} KB (+${((all - base) / 1024).toFixed(1)} KB)`);
