// The accounts the console's listing and export tests page through: 60 outcomes of one tenant, half
// HubSpot and half Salesforce, a third needing review, one name a spreadsheet would run as a formula,
// a minute apart from 2026-01-01.
import type { Store } from '../../src/store/store.ts';

export async function seedConsoleOutcomes(store: Store, tenant: string, count = 60): Promise<void> {
  const { outcomes } = await store.open();
  for (let i = 0; i < count; i++)
    await outcomes.record({
      crm: i % 2 ? 'hubspot' : 'salesforce',
      tenant,
      accountId: `a${i}`,
      accountName: i === 7 ? '=HYPERLINK("x")' : `County ${i}`,
      state: 'TX',
      status: i % 3 ? 'enriched' : 'needs_review',
      matchedBy: 'name',
      buyerId: `b${i}`,
      buyerName: `Buyer ${i}`,
      buyerType: 'county',
      confidence: 0.9,
      reason: 'r',
      candidates: [],
      detail: {
        source: null,
        fields: [],
        written: {},
        notes: { created: [], alreadyPresent: 0, overCap: 0 },
      },
      at: new Date(Date.UTC(2026, 0, 1, 0, i)),
    });
}
