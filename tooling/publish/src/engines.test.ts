import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { accepts, checkEngines } from './engines.ts';
import { publishedPackages, readManifest, repoRoot, workspacePackages } from './workspace.ts';

const declared = readManifest(repoRoot).engines?.node;

describe('engines', () => {
  it('every published package declares the repo-wide Node range', () => {
    expect(declared).toBe('>=20.19');
    for (const { manifest } of publishedPackages()) expect({ name: manifest.name, node: manifest.engines?.node }).toEqual({ name: manifest.name, node: declared });
  });

  it("every run-time dependency of a published package accepts the package's whole Node range", () => {
    for (const { dir } of publishedPackages()) expect(checkEngines(dir, declared!, ['dependencies', 'optionalDependencies', 'peerDependencies'])).toEqual([]);
  });

  // Third-party clients the gateway tests drive at their latest versions (issue #32 asks for the
  // clients users have, at their latest versions): these latest majors declare Node >= 22 while the
  // repo runs Node 20. They are test-only callers, never shipped; the gateway tests run them here and
  // pass. Each is named with its version, so a new version must be looked at again.
  const TEST_CLIENTS_AHEAD_OF_NODE = new Set(['openai@7.57.0', '@google/genai@3.3.0', '@langchain/openai@1.6.0']);

  it('every tool the repo installs accepts the Node that runs it (the named test clients aside)', () => {
    for (const dir of [repoRoot, ...workspacePackages().map((p) => p.dir)]) {
      const problems = checkEngines(dir, process.version, ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies']);
      expect(problems.filter((p) => !TEST_CLIENTS_AHEAD_OF_NODE.has(p.package))).toEqual([]);
    }
  });

  it('the test clients ahead of Node are reached only as dev dependencies of unpublished tests', () => {
    for (const { dir } of publishedPackages()) {
      const shipped = checkEngines(dir, process.version, ['dependencies', 'optionalDependencies', 'peerDependencies']);
      expect(shipped.filter((p) => TEST_CLIENTS_AHEAD_OF_NODE.has(p.package))).toEqual([]);
    }
  });
});

describe('checkEngines', () => {
  const root = mkdtempSync(join(tmpdir(), 'parlance-engines-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (dir: string, manifest: object) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
  };

  it('reports a transitive dependency whose engines exclude part of the range, with the chain that pulls it in', () => {
    write(root, { name: 'app', version: '1.0.0', dependencies: { a: '1' }, peerDependencies: { missing: '1' } });
    write(join(root, 'node_modules/a'), { name: 'a', version: '1.0.0', engines: { node: '>=18' }, dependencies: { b: '4' } });
    write(join(root, 'node_modules/a/node_modules/b'), { name: 'b', version: '4.1.3', engines: { node: '>=22.12' } });
    expect(checkEngines(root, '>=20.19', ['dependencies', 'peerDependencies'])).toEqual([
      { package: 'b@4.1.3', wants: '>=22.12', required: '>=20.19', via: ['a', 'b'] },
    ]);
  });

  it('accepts a range inside the declared one and checks a plain version against a range', () => {
    expect(accepts('>=18', '>=20.19')).toBe(true);
    expect(accepts('^20.19.0 || >=22.12.0', '>=20.19')).toBe(false);
    expect(accepts('^20.19.0 || >=22.12.0', 'v20.20.2')).toBe(true);
    expect(accepts('>=22.12', 'v20.20.2')).toBe(false);
  });
});
