// Which CRM fields hold an account's ids (NCES, IPEDS, Census, the provider's buyer id), as each CRM's
// configuration names them: `nces=district_nces_id,ipeds=ipeds_unitid` (only those kinds are read),
// `none` (no ids), or unset for our own fields, which `setup` creates. One form for every CRM; each
// checks the spelling of its own field names. The values are text: a connector never turns one into a
// number (an NCES id keeps its leading zeros).
import { z } from 'zod';
import { splitList } from '../src/shared/config-schema.ts';
import type { AccountIdField, AccountIdKind, AccountIds } from './types.ts';

export const ACCOUNT_ID_KINDS: readonly AccountIdKind[] = ['nces', 'ipeds', 'census', 'buyer'];

/** Kind → CRM field name; a kind left out is not read. */
export type IdFieldNames = Partial<Record<AccountIdKind, string>>;

/**
 * Our fields, in snake case (each CRM spells them its own way). Apart from the fields enrichment writes
 * (`buyer_intel_nces_id` holds the matched buyer's id): an id we read must be what a person typed.
 */
export const DEFAULT_ID_FIELD_NAMES: Readonly<Record<AccountIdKind, string>> = {
  nces: 'buyer_intel_match_nces_id',
  ipeds: 'buyer_intel_match_ipeds_id',
  census: 'buyer_intel_match_census_id',
  buyer: 'buyer_intel_match_buyer_id',
};

const isKind = (k: string): k is AccountIdKind => (ACCOUNT_ID_KINDS as readonly string[]).includes(k);

/**
 * The variable naming a CRM's id fields. `fieldProblem` says what is wrong with a field name of that
 * CRM (undefined: nothing). Every problem is its own issue, so all are listed at once.
 */
export function idFieldsVariable(
  defaults: Readonly<Record<AccountIdKind, string>>,
  fieldProblem: (name: string) => string | undefined,
) {
  return z
    .string()
    .optional()
    .transform((value, ctx): IdFieldNames => {
      if (value === undefined) return { ...defaults };
      if (value.trim().toLowerCase() === 'none') return {};
      const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
      const names: IdFieldNames = {};
      const kindOf = new Map<string, AccountIdKind>();
      const seen = new Set<AccountIdKind>();
      for (const item of splitList(value)) {
        const at = item.indexOf('=');
        if (at < 0) {
          issue(
            `"${item}" must be kind=field, a kind being ${ACCOUNT_ID_KINDS.join(', ')} (or the whole value none)`,
          );
          continue;
        }
        const kind = item.slice(0, at).trim().toLowerCase();
        const name = item.slice(at + 1).trim();
        if (!isKind(kind)) {
          issue(`"${kind}" is not an id kind (${ACCOUNT_ID_KINDS.join(', ')})`);
          continue;
        }
        if (seen.has(kind)) {
          issue(`names ${kind} twice`);
          continue;
        }
        seen.add(kind);
        const problem = name ? fieldProblem(name) : 'is empty';
        if (problem) {
          issue(`${kind}: "${name}" ${problem}`);
          continue;
        }
        const other = kindOf.get(name.toLowerCase());
        if (other) {
          issue(`"${name}" is named for both ${other} and ${kind}`);
          continue;
        }
        kindOf.set(name.toLowerCase(), kind);
        names[kind] = name;
      }
      return names;
    });
}

/** The fields of `names`, in kind order; `ours` says which of them are ours to create. */
export function idFieldList(names: IdFieldNames, ours: (name: string) => boolean): AccountIdField[] {
  return ACCOUNT_ID_KINDS.flatMap((kind) => {
    const name = names[kind];
    return name ? [{ kind, name, ours: ours(name) }] : [];
  });
}

/** An account's ids from its field values (trimmed, empty ones left out); undefined when it has none. */
export function readIds(
  fields: readonly AccountIdField[],
  valueAt: (name: string) => string | null | undefined,
): AccountIds | undefined {
  const ids: AccountIds = {};
  for (const { kind, name } of fields) {
    const value = valueAt(name)?.trim();
    if (value) ids[kind] = value;
  }
  return Object.keys(ids).length ? ids : undefined;
}
