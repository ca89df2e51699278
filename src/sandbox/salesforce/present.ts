// How records appear in REST answers: `attributes: {type, url}` first, then the fields in their defined
// spelling.
import type { FieldValue, SObjectRecord } from './store.ts';

export type PresentedRecord = { attributes: { type: string; url: string } } & Record<string, unknown>;

export function recordUrl(version: string, type: string, id: string): string {
  return `/services/data/v${version}/sobjects/${type}/${id}`;
}

export function presentRecord(version: string, record: SObjectRecord, fields: string[]): PresentedRecord {
  const out: PresentedRecord = {
    attributes: { type: record.type, url: recordUrl(version, record.type, record.id) },
  };
  for (const f of fields) out[f] = record.values.get(f) ?? (null as FieldValue);
  return out;
}
