/**
 * Each package README's API section, generated from the package's entry points: one table per
 * entry (`@parlance/react`, `@parlance/react/query`), one row per export with the first sentence of
 * its TSDoc. Written between `<!-- api:start -->` and `<!-- api:end -->` by
 * `pnpm --filter @parlance/publish-checks api-docs`; a test checks the READMEs are current.
 */
import { apiSurface, hasExample, summary } from './api-surface.ts';
import type { WorkspacePackage } from './workspace.ts';

export const API_START = '<!-- api:start -->';
export const API_END = '<!-- api:end -->';

export function renderApi(pkg: WorkspacePackage): string {
  const lines = ['<!-- Generated from the TSDoc in src/ by `pnpm --filter @parlance/publish-checks api-docs`; do not edit by hand. -->'];
  for (const entry of apiSurface(pkg)) {
    const path = entry.entry === '.' ? pkg.manifest.name : `${pkg.manifest.name}/${entry.entry.slice(2)}`;
    lines.push('', `### \`${path}\``, '', '| export | kind | what it is |', '| --- | --- | --- |');
    for (const s of entry.symbols) lines.push(`| \`${s.name}\` | ${s.kind || (s.type ? 'type' : 'value')} | ${summary(s.doc)}${hasExample(s.doc) ? ' (example in TSDoc)' : ''} |`);
  }
  return lines.join('\n');
}

/** The README with its API section replaced by the generated one (throws without the markers). */
export function withApi(readme: string, pkg: WorkspacePackage): string {
  const start = readme.indexOf(API_START);
  const end = readme.indexOf(API_END);
  if (start < 0 || end < start) throw new Error(`${pkg.manifest.name}: README.md has no ${API_START} … ${API_END} section`);
  return `${readme.slice(0, start + API_START.length)}\n${renderApi(pkg)}\n${readme.slice(end)}`;
}
