/**
 * Puts the latest bench output into README.md: each `<!-- bench:NAME:start ... -->` ...
 * `<!-- bench:NAME:end -->` block gets the content of results/NAME.md (written by the benches:
 * `latest` by compare.bench.ts, `store-per-delta` by store-per-delta.bench.ts).
 * `pnpm --filter @parlance/bench readme`. The README's tables are never edited by hand;
 * `--check` exits 1 when the README differs from the results files.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const readmeUrl = new URL('../README.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const BLOCK = /(<!-- bench:([a-z-]+):start[^>]*-->)[\s\S]*?(<!-- bench:\2:end -->)/g;
let blocks = 0;
const next = readme.replace(BLOCK, (_, start: string, name: string, end: string) => {
  blocks++;
  const content = readFileSync(new URL(`../results/${name}.md`, import.meta.url), 'utf8').trim();
  return `${start}\n\n${content}\n\n${end}`;
});
if (blocks === 0) throw new Error('README.md has no <!-- bench:NAME:start --> ... <!-- bench:NAME:end --> block');
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('README.md does not hold the results/*.md files: run `pnpm --filter @parlance/bench readme`.');
    process.exit(1);
  }
  console.log(`README.md holds the results (${blocks} blocks).`);
} else {
  writeFileSync(readmeUrl, next);
  console.log(`README.md: ${blocks} blocks replaced from results/*.md.`);
}
