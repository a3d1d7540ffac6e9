// Rewrites the API section of every published package's README (see api-docs.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { withApi } from './api-docs.ts';
import { publishedPackages } from './workspace.ts';

for (const pkg of publishedPackages()) {
  const file = join(pkg.dir, 'README.md');
  const next = withApi(readFileSync(file, 'utf8'), pkg);
  writeFileSync(file, next);
  console.log(file);
}
