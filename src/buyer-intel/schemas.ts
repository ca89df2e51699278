// Response schemas of the Buyer Intelligence API. Two documents describe it (the spec and the provider's
// older OpenAPI) and they differ in places, so every parser here is tolerant: unknown members pass
// through, members that neither document marks required are optional and nullable, and enum-typed
// members accept any string (the provider adds values over time). What is required by the spec stays
// required: a response without it is a broken response, not a variant.
import { z } from 'zod';

const str = z.string();
const optStr = z.string().nullish();

export const paginationEnvelope = <T extends z.ZodType>(item: T) =>
  z.looseObject({
    pageNumber: z.number().int(),
    pageSize: z.number().int(),
    totalItems: z.number().int(),
    totalPages: z.number().int(),
    result: z.array(item),
  });

export interface Page<T> {
  pageNumber: number;
  pageSize: number;
  totalItems: number;
  totalPages: number;
  result: T[];
}

// ---- Buyers -------------------------------------------------------------------------------------------

export const buyerBriefSchema = z.looseObject({
  id: str,
  name: str,
  type: optStr,
  countryCode: optStr,
  fromSourceFile: z.boolean().nullish(),
  stateCode: optStr,
  url: optStr,
  tags: z.array(str).nullish(),
  linkedinSlug: optStr,
  logoPath: optStr,
});
export type BuyerBrief = z.infer<typeof buyerBriefSchema>;

export const buyerSearchResponseSchema = z.looseObject({ buyers: z.array(buyerBriefSchema) });
export type BuyerSearchResponse = z.infer<typeof buyerSearchResponseSchema>;

export const buyerAttributesBulkResponseSchema = z.looseObject({
  buyerId: str,
  buyerData: z.record(z.string(), z.unknown()).nullish(),
});
export type BuyerAttributesBulkResponse = z.infer<typeof buyerAttributesBulkResponseSchema>;

export const buyerAttributeResponseSchema = z.looseObject({ buyerData: z.unknown() });
export type BuyerAttributeResponse = z.infer<typeof buyerAttributeResponseSchema>;

// getBuyerSchema: neither document shows its path or shape. We accept a bare array of field
// descriptors or an object holding one under `fields` / `attributes`, each descriptor with at least a key.
const buyerFieldDescriptorSchema = z
  .looseObject({
    key: optStr,
    name: optStr,
    field: optStr,
    label: optStr,
    description: optStr,
    type: optStr,
  })
  .transform((d, ctx) => {
    const key = d.key ?? d.field ?? d.name;
    if (!key) {
      ctx.addIssue({ code: 'custom', message: 'field descriptor has no key', path: ['key'] });
      return z.NEVER;
    }
    return { ...d, key, label: d.label ?? d.name ?? key };
  });
export const buyerSchemaResponseSchema = z
  .union([
    z.array(buyerFieldDescriptorSchema),
    z.looseObject({ fields: z.array(buyerFieldDescriptorSchema) }).transform((o) => o.fields),
    z.looseObject({ attributes: z.array(buyerFieldDescriptorSchema) }).transform((o) => o.attributes),
  ])
  .transform((fields) => ({ fields }));
export type BuyerSchemaResponse = z.infer<typeof buyerSchemaResponseSchema>;

// searchBuyersByCriteria: not shown either. Accept `{buyers}` like quick search, or a pagination envelope.
export const buyerCriteriaSearchResponseSchema = z.union([
  buyerSearchResponseSchema,
  paginationEnvelope(buyerBriefSchema).transform((p) => ({ ...p, buyers: p.result })),
]);

// ---- Bridges -------------------------------------------------------------------------------------------

export const fieldFormatSchema = z.looseObject({
  baseFormat: optStr,
  description: optStr,
  enumerationValues: z.array(z.looseObject({ value: str, label: optStr })).nullish(),
  currency: optStr,
  listElementBaseFormat: optStr,
  outputFields: z.array(z.looseObject({ name: str, type: optStr, description: optStr })).nullish(),
});

export const bridgeColumnSchema = z.looseObject({
  columnId: str,
  bridgeId: optStr,
  name: str,
  prompt: optStr,
  type: optStr,
  fieldFormat: fieldFormatSchema.nullish(),
  index: z.number().int().nullish(),
  key: optStr,
});
export type BridgeColumn = z.infer<typeof bridgeColumnSchema>;

export const bridgeSummarySchema = z.looseObject({
  bridgeId: str,
  name: str,
  filterType: optStr,
  columns: z
    .array(bridgeColumnSchema)
    .nullish()
    .transform((c) => c ?? []),
});
export type BridgeSummary = z.infer<typeof bridgeSummarySchema>;

export const bridgeSchema = z.looseObject({
  bridgeId: str,
  name: str,
  userId: optStr,
  filterType: optStr,
  status: optStr,
  updatedAt: optStr,
  rowCount: z.number().int().nullish(),
});
export type Bridge = z.infer<typeof bridgeSchema>;

/** One cell of a row, always in the reference's wrapped shape once parsed. */
export interface ColumnValue {
  value: unknown;
  status: string | null;
  processedAt: string | null;
}

const WRAPPED_KEYS = new Set(['value', 'status', 'processedAt']);

/**
 * The spec leaves the row `columns` values unshown; the reference wraps each as
 * `{value, status, processedAt}`. A raw value is taken as `{value, status: null, processedAt: null}`.
 * An object counts as wrapped only when it has `value` and nothing but the three wrapper keys.
 */
export function toColumnValue(raw: unknown): ColumnValue {
  if (raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
    const keys = Object.keys(raw);
    if (keys.includes('value') && keys.every((k) => WRAPPED_KEYS.has(k))) {
      const w = raw as { value: unknown; status?: unknown; processedAt?: unknown };
      return {
        value: w.value,
        status: typeof w.status === 'string' ? w.status : null,
        processedAt: typeof w.processedAt === 'string' ? w.processedAt : null,
      };
    }
  }
  return { value: raw, status: null, processedAt: null };
}

export const bridgeRowSchema = z.looseObject({
  rowId: str,
  bridgeId: str,
  createdAt: optStr,
  updatedAt: optStr,
  status: optStr,
  name: optStr,
  buyerId: optStr,
  organizerId: optStr,
  // The spec's entity has only `id`; the reference adds `type`.
  entity: z.looseObject({ id: str, type: optStr }).nullish(),
  columns: z
    .record(z.string(), z.unknown())
    .nullish()
    .transform((cols) =>
      Object.fromEntries(Object.entries(cols ?? {}).map(([k, v]) => [k, toColumnValue(v)])),
    ),
});
export type BridgeRow = z.infer<typeof bridgeRowSchema>;

export const bridgeSignalSchema = z.looseObject({ bridge: bridgeSummarySchema, row: bridgeRowSchema });
export type BridgeSignal = z.infer<typeof bridgeSignalSchema>;

export const bridgeColumnMetadataSchema = z.looseObject({
  columnId: str,
  bridgeId: optStr,
  column: bridgeColumnSchema.nullish(),
  additionalFields: z.array(z.looseObject({ key: str, name: optStr })).nullish(),
});
export type BridgeColumnMetadata = z.infer<typeof bridgeColumnMetadataSchema>;
export const bridgeColumnMetadataListSchema = z.array(bridgeColumnMetadataSchema);

// ---- Buyer summary (reference only) -------------------------------------------------------------------

const detailSectionSchema = z.looseObject({
  status: optStr,
  intro: optStr,
  sections: z.array(
    z.looseObject({
      title: str,
      text: str,
      sources: z.array(z.looseObject({ entryId: str, triggerId: str })).nullish(),
    }),
  ),
});

export const buyerSummaryResponseSchema = z.looseObject({
  buyerId: str,
  summary: z
    .looseObject({
      whatsRecent: detailSectionSchema,
      theBiggerPicture: detailSectionSchema,
      areasForDeeperDiscovery: detailSectionSchema,
    })
    .nullish(),
  score: z.number().nullish(),
  scoreReasoning: optStr,
  generatedAt: optStr,
  needsRegeneration: z.boolean().nullish(),
});
export type BuyerSummaryResponse = z.infer<typeof buyerSummaryResponseSchema>;
