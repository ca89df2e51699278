// `--filter` for backfill: `field=value`, `field!=value`, `field=` (empty) over an account's name,
// state, city, website or one of our CRM fields (e.g. buyer_intel_status= for never-enriched accounts).
import type { AccountSnapshot } from '../../connectors/types.ts';

export interface AccountFilter {
  field: string;
  negate: boolean;
  value: string;
}

const STANDARD = ['name', 'state', 'city', 'website'] as const;

export function parseFilter(text: string): AccountFilter {
  const m = /^([A-Za-z][A-Za-z0-9_]*)(!?=)(.*)$/.exec(text.trim());
  if (!m) throw new Error(`--filter "${text}" must look like field=value, field!=value or field=`);
  return { field: m[1] ?? '', negate: m[2] === '!=', value: (m[3] ?? '').trim() };
}

/** The CRM fields a filter needs read (the standard ones are always read). */
export function filterFields(filters: readonly AccountFilter[]): string[] {
  return filters.map((f) => f.field).filter((f) => !(STANDARD as readonly string[]).includes(f));
}

export function matchesFilters(account: AccountSnapshot, filters: readonly AccountFilter[]): boolean {
  return filters.every((f) => {
    const raw = (STANDARD as readonly string[]).includes(f.field)
      ? account[f.field as (typeof STANDARD)[number]]
      : account.fields[f.field];
    const equal = (raw ?? '').trim().toLowerCase() === f.value.toLowerCase();
    return f.negate ? !equal : equal;
  });
}
