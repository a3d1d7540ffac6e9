/**
 * The public API of a published package, read from its source entry points (the `exports` map):
 * every exported name, whether it is a type, and the TSDoc on its declaration (followed through
 * re-exports and imports). Plain text parsing of our own index files, which list exports by name.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { repoRoot, type WorkspacePackage } from './workspace.ts';

export interface ExportedSymbol {
  name: string;
  /** The subpath it is exported from ('.' or './query'). */
  entry: string;
  type: boolean;
  /** How it is declared: function, class, const, interface, type, enum ('' when not found). */
  kind: string;
  /** The TSDoc block on its declaration, without the comment markers ('' when there is none). */
  doc: string;
}

export interface EntrySurface {
  entry: string;
  file: string;
  symbols: ExportedSymbol[];
  /** `export * from` statements (their targets): the index does not list these names. */
  stars: string[];
}

const NAME_LIST = /export\s+(type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g;
const STAR = /export\s+\*\s+(?:as\s+\w+\s+)?from\s*['"]([^'"]+)['"]/g;
const LOCAL = /export\s+(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|const|let|class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/g;

function resolveModule(fromFile: string, spec: string): string | undefined {
  // A type re-exported from another Parlance package is documented there.
  const sibling = /^@parlance\/([\w-]+)$/.exec(spec);
  if (sibling) return existsSync(join(repoRoot, 'packages', sibling[1]!, 'src/index.ts')) ? join(repoRoot, 'packages', sibling[1]!, 'src/index.ts') : undefined;
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(fromFile), spec);
  for (const candidate of [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (existsSync(candidate) && candidate.match(/\.tsx?$/)) return candidate;
  return undefined;
}

function splitNames(list: string): { name: string; local: string; type: boolean }[] {
  return list
    .split(',')
    .map((s) => s.replace(/\/\/.*$/gm, '').trim())
    .filter(Boolean)
    .map((item) => {
      const type = item.startsWith('type ');
      const [local, alias] = item.replace(/^type\s+/, '').split(/\s+as\s+/);
      return { local: local!.trim(), name: (alias ?? local)!.trim(), type };
    });
}

/** The TSDoc right before `index` in `text`, or ''. */
function docBefore(text: string, index: number): string {
  const before = text.slice(0, index).trimEnd();
  if (!before.endsWith('*/')) return '';
  const start = before.lastIndexOf('/**');
  if (start < 0) return '';
  return before
    .slice(start + 3, -2)
    .split('\n')
    .map((l) => l.replace(/^\s*\* ?/, ''))
    .join('\n')
    .trim();
}

/** Finds `name`'s declaration from `file` (through re-exports and imports) and returns its TSDoc. */
export function findDoc(file: string, name: string, seen = new Set<string>()): { doc: string; found: boolean; kind?: string } {
  const key = `${file}#${name}`;
  if (seen.has(key)) return { doc: '', found: false };
  seen.add(key);
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(LOCAL)) if (m[2] === name) return { doc: docBefore(text, m.index!), found: true, kind: m[1]!.replace('*', '') };
  for (const m of text.matchAll(NAME_LIST)) {
    const hit = splitNames(m[2]!).find((n) => n.name === name);
    const target = hit && resolveModule(file, m[3]!);
    if (hit && target) return findDoc(target, hit.local, seen);
  }
  // `export type { X };` of an imported name: the TSDoc on that statement documents it here.
  for (const m of text.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}\s*;/g)) {
    if (splitNames(m[1]!).some((n) => n.name === name)) {
      const doc = docBefore(text, m.index!);
      if (doc) return { doc, found: true, kind: 'type' };
    }
  }
  for (const m of text.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s*from\s*['"]([^'"]+)['"]/g)) {
    const hit = splitNames(m[1]!).find((n) => n.name === name);
    const target = hit && resolveModule(file, m[2]!);
    if (hit && target) return findDoc(target, hit.local, seen);
  }
  for (const m of text.matchAll(STAR)) {
    const target = resolveModule(file, m[1]!);
    if (!target) continue;
    const found = findDoc(target, name, seen);
    if (found.found) return found;
  }
  return { doc: '', found: false };
}

/** Every name a module exports (following `export *`), for an index that still has one. */
function allExports(file: string, seen = new Set<string>()): { name: string; type: boolean }[] {
  if (seen.has(file)) return [];
  seen.add(file);
  const text = readFileSync(file, 'utf8');
  const out: { name: string; type: boolean }[] = [];
  for (const m of text.matchAll(NAME_LIST)) for (const n of splitNames(m[2]!)) out.push({ name: n.name, type: Boolean(m[1]) || n.type });
  for (const m of text.matchAll(/export\s+(type\s+)?\{([^}]*)\}\s*;/g)) for (const n of splitNames(m[2]!)) out.push({ name: n.name, type: Boolean(m[1]) || n.type });
  for (const m of text.matchAll(LOCAL)) out.push({ name: m[2]!, type: m[1] === 'interface' || m[1] === 'type' });
  for (const m of text.matchAll(STAR)) {
    const target = resolveModule(file, m[1]!);
    if (target) out.push(...allExports(target, seen));
  }
  return out;
}

/** The package's public surface, entry by entry. */
export function apiSurface(pkg: WorkspacePackage): EntrySurface[] {
  const exportsMap = (pkg.manifest.exports ?? {}) as Record<string, unknown>;
  const out: EntrySurface[] = [];
  for (const [entry, target] of Object.entries(exportsMap)) {
    if (typeof target !== 'string' || !/\.tsx?$/.test(target)) continue;
    const file = join(pkg.dir, target);
    const text = readFileSync(file, 'utf8');
    const stars = [...text.matchAll(STAR)].map((m) => m[1]!);
    const names = new Map<string, boolean>();
    for (const { name, type } of allExports(file)) names.set(name, (names.get(name) ?? true) && type);
    const symbols = [...names].map(([name, type]) => {
      const found = findDoc(file, name);
      return { name, entry, type, kind: found.kind ?? '', doc: found.doc };
    });
    out.push({ entry, file, stars, symbols: symbols.sort((a, b) => a.name.localeCompare(b.name)) });
  }
  return out;
}

/** The first sentence of a TSDoc block (for a table cell). */
export function summary(doc: string): string {
  const text = doc.split(/\n\s*@/)[0]!.split(/\n\s*\n/)[0]!.replace(/\s+/g, ' ').trim();
  const end = text.search(/\.(\s|$)/);
  return (end < 0 ? text : text.slice(0, end + 1)).replace(/\|/g, '\\|');
}

export const hasExample = (doc: string): boolean => /(^|\n)@example\b/.test(doc);
