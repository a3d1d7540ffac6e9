/**
 * What a provider's models need beyond its definition: the client dialects they may speak and the
 * catalog tables they are looked up in. A built-in provider carries a kit of its own (its dialect,
 * its table), so `@parlance/engine/providers/<id>` bundles one dialect and one table; a provider
 * from `defineProvider` gets every dialect and the whole catalog (./full-kit.ts).
 */
import { type ClientDialect, DIALECT_IDS } from '@parlance/dialects';
import { ParlanceError } from '@parlance/protocol';
import { type CatalogTable, modelInfoFromTable, type ModelInfo } from '../catalog/model-info.ts';
import type { ProviderDefinition } from './types.ts';

/** The dialects (by id) and catalog tables (by catalog id) a provider's models are built with. */
export interface ProviderKit {
  readonly dialects: Readonly<Partial<Record<string, ClientDialect>>>;
  readonly catalog: Readonly<Record<string, CatalogTable>>;
}

/** The client dialect `id` from the kit; `invalid_request` naming what the provider has when it lacks it. */
export function kitDialect(kit: ProviderKit, id: string, providerName: string): ClientDialect {
  const dialect = kit.dialects[id];
  if (dialect) return dialect;
  if (!(DIALECT_IDS as readonly string[]).includes(id)) {
    throw new ParlanceError('invalid_request', `Unknown dialect "${id}". Known dialects: ${DIALECT_IDS.join(', ')}`);
  }
  const has = Object.keys(kit.dialects).join(', ');
  throw new ParlanceError(
    'invalid_request',
    `${providerName} speaks ${has}, not ${id}: for another dialect define a provider with defineProvider({ ..., dialect: '${id}' })`,
  );
}

/** The catalog's entry with the definition's own corrections on top. */
export function kitModelInfo(kit: ProviderKit, definition: ProviderDefinition, modelId: string): ModelInfo {
  // A table of the definition's own (a cloud's) wins over the kit's.
  const table = definition.catalogTable ?? kit.catalog[definition.catalog ?? definition.id];
  const info = modelInfoFromTable(definition.id, modelId, table);
  const override = definition.models?.[modelId];
  return override ? { ...info, ...override, known: true } : info;
}
