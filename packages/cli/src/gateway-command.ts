/**
 * `parlance gateway --config <file>`: runs the gateway (`@parlance/server/gateway`) on Node
 * for local use. Any official SDK pointed at it reaches the configured providers; provider
 * keys come from this process's environment (OPENAI_API_KEY, ANTHROPIC_API_KEY,
 * GEMINI_API_KEY, ...), never from the config's callers.
 *
 * The config is JSON:
 *   {
 *     "host": "127.0.0.1", "port": 8787,
 *     "routes": { "fast": "openai:gpt-5-mini", "smart": ["anthropic:claude-sonnet-4-5", "openai:gpt-5"],
 *                 "local": { "provider": "ollama", "model": "qwen3" } },
 *     "keys": { "sk-dev-5d1e8a27c4f9": { "id": "me", "models": ["fast"], "rateLimit": { "requests": 60, "windowMs": 60000 } } },
 *     "keysFromEnv": { "GATEWAY_KEY_TEAM_A": { "id": "team-a" } },
 *     "allowProviderModels": false, "maxBodyBytes": 4194304, "logUsage": true
 *   }
 * `keysFromEnv` names environment variables holding keys, so none needs to sit in the file.
 * With `logUsage`, each finished call prints one JSON line (key id, model, usage, cost).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { serve } from '@hono/node-server';
import { checkGatewayConfig, createGateway, staticKeys, type GatewayPrincipal, type GatewayRoute } from '@parlance/server/gateway';
import type { CliIo } from './decode-command.ts';

/**
 * The help text of `parlance gateway`.
 *
 * @example
 * ```ts
 * process.stdout.write(GATEWAY_HELP);
 * ```
 */
export const GATEWAY_HELP = `Usage: parlance gateway --config <file> [--host <host>] [--port <port>]

Serve the Parlance gateway: the OpenAI (Chat Completions, Responses), Anthropic,
Gemini and Ollama APIs, each routed to any configured provider.

Options:
  -c, --config <file>  the JSON config (routes, gateway keys, limits)
      --host <host>    address to listen on (default: the config's, else 127.0.0.1)
  -p, --port <port>    port (default: the config's, else 8787; 0 picks a free one)
  -h, --help           show this help

Provider keys come from the environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY, ...).
`;

/**
 * The config file's shape (see the module comment).
 *
 * @example
 * ```ts
 * const config: GatewayConfig = { routes: { fast: 'openai:gpt-5-mini' }, keys: { 'sk-dev-5d1e8a27c4f9': { id: 'me' } } };
 * ```
 */
export interface GatewayConfig {
  host?: string;
  port?: number;
  routes: Record<string, GatewayRoute>;
  keys?: Record<string, GatewayPrincipal>;
  keysFromEnv?: Record<string, GatewayPrincipal>;
  allowProviderModels?: boolean;
  maxBodyBytes?: number;
  logUsage?: boolean;
}

class ConfigError extends Error {}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function principals(value: unknown, where: string): Record<string, GatewayPrincipal> {
  if (value === undefined) return {};
  if (!isObject(value)) throw new ConfigError(`"${where}" must be an object of key -> { id, models?, rateLimit? }`);
  for (const [key, principal] of Object.entries(value)) {
    if (!isObject(principal) || typeof principal.id !== 'string') throw new ConfigError(`"${where}.${key}" needs an "id" string`);
    if (principal.models !== undefined && !(Array.isArray(principal.models) && principal.models.every((m) => typeof m === 'string'))) {
      throw new ConfigError(`"${where}.${key}.models" must be a list of model names`);
    }
    const limit = principal.rateLimit;
    if (limit !== undefined && !(isObject(limit) && Number.isInteger(limit.requests) && Number.isInteger(limit.windowMs))) {
      throw new ConfigError(`"${where}.${key}.rateLimit" must be { "requests": <int>, "windowMs": <int> }`);
    }
  }
  return value as Record<string, GatewayPrincipal>;
}

/**
 * Checks a parsed config file; throws with the field at fault.
 *
 * @example
 * ```ts
 * const config = parseGatewayConfig(JSON.parse(await readFile('gateway.json', 'utf8')));
 * ```
 */
export function parseGatewayConfig(value: unknown): GatewayConfig {
  if (!isObject(value)) throw new ConfigError('The config must be a JSON object');
  if (!isObject(value.routes) || Object.keys(value.routes).length === 0) throw new ConfigError('"routes" must name at least one model');
  if (value.port !== undefined && !(Number.isInteger(value.port) && (value.port as number) >= 0 && (value.port as number) < 65536)) {
    throw new ConfigError('"port" must be a port number');
  }
  if (value.host !== undefined && typeof value.host !== 'string') throw new ConfigError('"host" must be a string');
  const config: GatewayConfig = { routes: value.routes as Record<string, GatewayRoute>, keys: principals(value.keys, 'keys'), keysFromEnv: principals(value.keysFromEnv, 'keysFromEnv') };
  if (typeof value.host === 'string') config.host = value.host;
  if (typeof value.port === 'number') config.port = value.port;
  if (value.allowProviderModels === true) config.allowProviderModels = true;
  if (typeof value.maxBodyBytes === 'number') config.maxBodyBytes = value.maxBodyBytes;
  if (value.logUsage === true) config.logUsage = true;
  if (Object.keys(config.keys ?? {}).length + Object.keys(config.keysFromEnv ?? {}).length === 0) {
    throw new ConfigError('Give at least one gateway key in "keys" or "keysFromEnv": the gateway spends your provider keys');
  }
  return config;
}

/**
 * The process's running gateway: its URL and how to stop it.
 *
 * @example
 * ```ts
 * const running = await startGateway(config, process.env, console.log);
 * await running.close();
 * ```
 */
export interface RunningGateway {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts the gateway for a config; `env` supplies provider keys and `keysFromEnv`.
 *
 * @example
 * ```ts
 * const { url } = await startGateway({ routes: { fast: 'openai:gpt-5-mini' }, keys: { 'sk-dev-5d1e8a27c4f9': { id: 'me' } }, port: 0 }, process.env, console.log);
 * ```
 */
export async function startGateway(config: GatewayConfig, env: Record<string, string | undefined>, log: (line: string) => void): Promise<RunningGateway> {
  const keys: Record<string, GatewayPrincipal> = { ...config.keys };
  for (const [name, principal] of Object.entries(config.keysFromEnv ?? {})) {
    const key = env[name];
    if (!key) throw new ConfigError(`The environment variable ${name} (in "keysFromEnv") is not set`);
    keys[key] = principal;
  }
  const authorize = staticKeys(keys);
  // Checked once, before listening: a bad key stops the command with the reason (exit 2), never a
  // refused request later. The problems name each key by its place and principal, never its value.
  try {
    checkGatewayConfig({ authorize });
  } catch (error) {
    throw new ConfigError(error instanceof Error ? error.message : String(error));
  }
  const app = createGateway({
    routes: config.routes,
    providers: { env },
    authorize,
    ...(config.allowProviderModels ? { allowProviderModels: true } : {}),
    ...(config.maxBodyBytes ? { maxBodyBytes: config.maxBodyBytes } : {}),
    ...(config.logUsage
      ? {
          onFinish: (finish) =>
            log(
              JSON.stringify({
                key: finish.principal.id,
                model: finish.model,
                provider: `${finish.provider}:${finish.providerModel}`,
                api: finish.dialect,
                finishReason: finish.finishReason,
                usage: finish.usage,
                ms: finish.durationMs,
              }),
            ),
        }
      : {}),
  });
  const hostname = config.host ?? '127.0.0.1';
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, hostname, port: config.port ?? 8787 }, (info) => {
      resolve({
        url: `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${info.port}`,
        close: () => new Promise<void>((done) => server.close(() => done())),
      });
    });
    server.once('error', reject);
  });
}

/**
 * @example
 * ```ts
 * const stop = new AbortController();
 * process.exitCode = await runGatewayCli(['--config', 'gateway.json'], process, { env: process.env, signal: stop.signal });
 * ```
 * `parlance gateway ...`: resolves when the server stops (`signal` aborted), to the exit code.
 * 2 for a usage or config error.
 */
export async function runGatewayCli(argv: string[], io: Pick<CliIo, 'stdout' | 'stderr'>, options: { env: Record<string, string | undefined>; signal: AbortSignal }): Promise<number> {
  const options_ = {
    config: { type: 'string', short: 'c' },
    host: { type: 'string' },
    port: { type: 'string', short: 'p' },
    help: { type: 'boolean', short: 'h' },
  } as const;
  let values: ReturnType<typeof parseArgs<{ args: string[]; strict: true; allowPositionals: false; options: typeof options_ }>>['values'];
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: options_,
    }).values;
  } catch (error) {
    io.stderr.write(`parlance gateway: ${error instanceof Error ? error.message : String(error)}\n`);
    return 2;
  }
  if (values.help) {
    io.stdout.write(GATEWAY_HELP);
    return 0;
  }
  if (!values.config) {
    io.stderr.write('parlance gateway: missing --config <file>\n');
    return 2;
  }
  let running: RunningGateway;
  try {
    const config = parseGatewayConfig(JSON.parse(await readFile(values.config, 'utf8')));
    if (values.host) config.host = values.host;
    if (values.port !== undefined) {
      const port = Number(values.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535) throw new ConfigError(`--port must be a port number, not "${values.port}"`);
      config.port = port;
    }
    running = await startGateway(config, options.env, (line) => io.stdout.write(`${line}\n`));
  } catch (error) {
    const message = (error as NodeJS.ErrnoException).code === 'ENOENT' ? `No such file: ${values.config}` : error instanceof Error ? error.message : String(error);
    io.stderr.write(`parlance gateway: ${message}\n`);
    return 2;
  }
  io.stdout.write(`Parlance gateway listening on ${running.url}\n`);
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await running.close();
  return 0;
}
