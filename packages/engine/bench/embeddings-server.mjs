// The embeddings server of embed-many.bench.ts, in its own process so its work does not
// share the client's event loop. Answers OpenAI's wire format after a fixed latency;
// bodies are cached per (count, format) so the server costs almost nothing per request.
// Prints its URL on stdout; counts requests; exits when its parent disconnects.
import { createServer } from 'node:http';

const dimensions = Number(process.env.DIMENSIONS);
const latency = Number(process.env.LATENCY_MS);
const vector = Array.from({ length: dimensions }, (_, i) => Math.fround(Math.sin(i) / 10));
const bytes = Buffer.alloc(dimensions * 4);
for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i], i * 4);
const encoded = { base64: `"${bytes.toString('base64')}"`, float: JSON.stringify(vector) };
const cache = new Map();
let requests = 0;

function body(count, format) {
  const key = `${count}:${format}`;
  let text = cache.get(key);
  if (!text) {
    const items = Array.from({ length: count }, (_, index) => `{"object":"embedding","index":${index},"embedding":${encoded[format]}}`);
    text = `{"object":"list","model":"m","data":[${items.join(',')}],"usage":{"prompt_tokens":${count * 9},"total_tokens":${count * 9}}}`;
    cache.set(key, text);
  }
  return text;
}

const server = createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    requests++;
    const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const text = body(parsed.input.length, parsed.encoding_format === 'base64' ? 'base64' : 'float');
    setTimeout(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
    }, latency);
  });
});
// Longer than any pause between runs: a keep-alive socket closed by the server while the
// client reuses it is an ECONNRESET that has nothing to do with what is measured.
server.keepAliveTimeout = 120_000;
server.listen(0, '127.0.0.1', () => {
  process.send({ url: `http://127.0.0.1:${server.address().port}` });
});
process.on('message', (message) => {
  if (message === 'count') process.send({ requests });
});
process.on('disconnect', () => process.exit(0));
