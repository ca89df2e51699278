// The admin console's mapping editor, wired: the mapping in force and its versions in the store, the
// file as version 1, and a preview's sources (the outcomes, the write history, the provider's cache).

import { recentEnrichedFrom } from '../mapping-versions/preview.ts';
import { mappingConsole } from '../mapping-versions/service.ts';
import type { ServiceCore } from './core.ts';

export function mappingConsoleOf(core: ServiceCore) {
  const { store, settings } = core;
  return mappingConsole({
    active: core.mappings,
    file: settings.mapping,
    thresholds: settings.match,
    source: settings.mappingFile ?? 'the built-in mapping',
    versions: async () => (await store.open()).mappings,
    preview: {
      recentEnriched: recentEnrichedFrom(async () => (await store.open()).outcomes),
      lastWrittenMany: async (crm, tenant, ids) =>
        (await store.open()).writes.lastWrittenMany(crm, tenant, ids),
      count: async (filter) => (await store.open()).outcomes.count(filter),
      countApprovable: async (floor) => (await store.open()).outcomes.countApprovable({}, floor),
      attributesOf: async (buyerId, keys) =>
        (await core.buyerIntel.cached.getBuyerAttributesBulk(buyerId, keys)).buyerData ?? {},
    },
  });
}
