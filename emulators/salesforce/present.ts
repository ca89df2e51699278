// How records appear in REST answers: `attributes: {type, url}` first, then the fields in their defined
// spelling. A base64 field (ContentNote.Content, ContentVersion.VersionData) is answered as the URL of
// its blob, `/services/data/vXX.X/sobjects/{type}/{id}/{field}`, as Salesforce's REST API does.
import type { FieldValue } from './field-types.ts';
import { isBase64Field, type SObjectRecord } from './store.ts';

export type PresentedRecord = { attributes: { type: string; url: string } } & Record<string, unknown>;

export function recordUrl(version: string, type: string, id: string): string {
  return `/services/data/v${version}/sobjects/${type}/${id}`;
}

export function presentRecord(version: string, record: SObjectRecord, fields: string[]): PresentedRecord {
  const out: PresentedRecord = {
    attributes: { type: record.type, url: recordUrl(version, record.type, record.id) },
  };
  for (const f of fields) {
    const value = record.values.get(f) ?? (null as FieldValue);
    out[f] =
      value !== null && isBase64Field(record.type, f)
        ? `${recordUrl(version, record.type, record.id)}/${f}`
        : value;
  }
  return out;
}
