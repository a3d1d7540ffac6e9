// The README's "Debugging a provider stream" commands, run as written (from the repo root):
// every file they name exists, each decode exits 0 and prints what it promises, and the
// section needs nothing but Node and npm (npx), as the README's first section promises.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { EXIT_OK, runCli } from './decode-command.ts';

const ROOT = join(import.meta.dirname, '../../..');
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
const section = readme.slice(readme.indexOf('## Debugging a provider stream'));
const lines = /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim().split('\n');

it('uses npx only', () => {
  for (const line of lines) expect(line.split(/\s*&&\s*/).every((command) => command.startsWith('npx '))).toBe(true);
});

it.each(lines.filter((l) => l.startsWith('npx parlance ')))('%s', async (line) => {
  const [command, stdinFile] = line.slice('npx parlance '.length).split(' < ');
  const argv = command!.split(' ').map((arg) => (arg.includes('/') ? join(ROOT, arg) : arg));
  for (const file of [...argv.filter((a) => a.startsWith(ROOT)), ...(stdinFile ? [join(ROOT, stdinFile)] : [])]) expect(existsSync(file), file).toBe(true);
  let out = '';
  const sink = { write: (chunk: string) => ((out += chunk), true) };
  const stdin = stdinFile ? createReadStream(join(ROOT, stdinFile)) : (async function* () {})();
  expect(await runCli(argv, { stdin, stdout: sink, stderr: sink })).toBe(EXIT_OK);
  if (argv.includes('--events')) expect(out).toContain('"type":"text-delta"');
  else expect(JSON.parse(out)).toMatchObject({ message: { role: 'assistant' } });
});
