/**
 * A real Debian `redis-server` for the tests: started on 127.0.0.1 on a free port with no
 * persistence, stopped after. Other helpers' tests run at the same time, so never a fixed port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface RedisOptions {
  /** A port to use (a restart on the same port); default a free one. */
  port?: number;
  /** Persist every write to an append-only file in this folder (`appendfsync always`), so a restart keeps the data. */
  aofDir?: string;
}

export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  for (let attempt = 0; ; attempt++) {
    const port = options.port ?? (await freePort());
    const persistence = options.aofDir ? ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', options.aofDir] : ['--appendonly', 'no'];
    const child: ChildProcess = spawn(
      process.env.REDIS_SERVER ?? '/usr/bin/redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'yes'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const ready = await new Promise<boolean>((resolve) => {
      let out = '';
      const timer = setTimeout(() => resolve(false), 10_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      child.once('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) {
      child.stdout!.resume();
      child.stderr!.resume();
      return {
        url: `redis://127.0.0.1:${port}`,
        port,
        stop: () =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      };
    }
    child.kill('SIGKILL');
    // The port was taken between finding it and binding it (another test): try another.
    if (attempt >= 3 || options.port !== undefined) throw new Error('redis-server did not start');
  }
}
