// A cloud's own catalog table: looked up with the catalog's rules, and kept out of the main catalog.
import { describe, expect, it } from 'vitest';
import azureModels from '../clouds/azure/models.json' with { type: 'json' };
import bedrockModels from '../clouds/bedrock/models.json' with { type: 'json' };
import vertexModels from '../clouds/vertex/models.json' with { type: 'json' };
import { CATALOG, listModels, modelInfoFromTable, type CatalogTable } from './catalog.ts';

const bedrock = bedrockModels.providers.bedrock as CatalogTable;
const vertex = vertexModels.providers.vertex as CatalogTable;
const azure = azureModels.providers.azure as CatalogTable;

describe('modelInfoFromTable', () => {
  it.each([
    ['bedrock', bedrock, 'amazon.nova-pro-v1:0', 'amazon.nova-pro-v1:0'],
    ['bedrock', bedrock, 'apac.amazon.nova-pro-v1:0', 'amazon.nova-pro-v1:0'],
    ['bedrock', bedrock, 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0'],
    ['bedrock', bedrock, 'global.anthropic.claude-opus-4-7', 'global.anthropic.claude-opus-4-7'],
    ['vertex', vertex, 'gemini-2.5-flash', 'gemini-2.5-flash'],
    ['vertex', vertex, 'claude-sonnet-4-5@20250929', 'claude-sonnet-4-5@20250929'],
    ['vertex', vertex, 'claude-opus-4-5@20251101', 'claude-opus-4-5@20251101'],
    ['azure', azure, 'gpt-5-mini', 'gpt-5-mini'],
  ])('%s %s is known and priced (as %s)', (provider, table, id, listed) => {
    const info = modelInfoFromTable(provider, id, table);
    expect(table[listed]).toBeDefined();
    expect(info).toMatchObject({ provider, id, known: true });
    expect(info.pricing?.input).toBeGreaterThan(0);
    expect(info.pricing?.output).toBeGreaterThan(0);
  });

  it('an unknown model gets the defaults, unpriced', () => {
    const info = modelInfoFromTable('bedrock', 'acme.unknown-v1:0', bedrock);
    expect(info.known).toBe(false);
    expect(info.pricing).toBeUndefined();
  });

  it('the main catalog (bundled by every app) holds no cloud table', () => {
    expect(Object.keys(CATALOG)).not.toEqual(expect.arrayContaining(['bedrock']));
    for (const cloud of ['bedrock', 'vertex', 'azure']) expect(listModels(cloud)).toEqual([]);
  });
});
