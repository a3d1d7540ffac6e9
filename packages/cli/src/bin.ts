// The `parlance` executable: all logic lives in the command modules so it can be tested as functions.
import { runCli } from './decode-command.ts';
import { runGatewayCli } from './gateway-command.ts';

// A reader that closes the pipe early (`| head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

const argv = process.argv.slice(2);
if (argv[0] === 'gateway') {
  // Runs until SIGINT / SIGTERM, then closes the server.
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  process.exitCode = await runGatewayCli(argv.slice(1), { stdout: process.stdout, stderr: process.stderr }, { env: process.env, signal: stop.signal });
} else {
  process.exitCode = await runCli(argv, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
}
