// The `parlance` executable: all logic lives in decode-command.ts so it can be tested as a function.
import { runCli } from './decode-command.ts';

// A reader that closes the pipe early (`| head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

process.exitCode = await runCli(process.argv.slice(2), { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr });
