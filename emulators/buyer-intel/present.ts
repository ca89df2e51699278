// Shapes the sandbox's records as the reference's response schemas.
import type { SandboxBridge, SandboxBuyer, SandboxColumn, SandboxRow } from './data/dataset.ts';

export function buyerBrief(b: SandboxBuyer) {
  return {
    id: b.id,
    name: b.name,
    type: b.type,
    countryCode: b.countryCode,
    fromSourceFile: b.fromSourceFile,
    stateCode: b.stateCode,
    url: b.url,
    tags: b.tags,
    linkedinSlug: b.linkedinSlug,
    logoPath: b.logoPath,
  };
}

/**
 * The reference types `currency` and `listElementBaseFormat` as nullable but lists only real values in
 * their enums, so a conforming answer leaves them out rather than sending null.
 */
function fieldFormat(f: SandboxColumn['fieldFormat']) {
  const { currency, listElementBaseFormat, ...rest } = f;
  return {
    ...rest,
    ...(currency ? { currency } : {}),
    ...(listElementBaseFormat ? { listElementBaseFormat } : {}),
  };
}

export function bridgeColumn(c: SandboxColumn) {
  return {
    columnId: c.columnId,
    bridgeId: c.bridgeId,
    name: c.name,
    prompt: c.prompt,
    type: c.type,
    fieldFormat: fieldFormat(c.fieldFormat),
    index: c.index,
    key: c.key,
  };
}

export function bridgeResponse(b: SandboxBridge, rowCount: number) {
  return {
    bridgeId: b.bridgeId,
    name: b.name,
    userId: b.userId,
    filterType: b.filterType,
    status: b.status,
    updatedAt: b.updatedAt,
    rowCount,
  };
}

export function bridgeBrief(b: SandboxBridge) {
  return {
    bridgeId: b.bridgeId,
    name: b.name,
    filterType: b.filterType,
    columns: b.columns.map(bridgeColumn),
  };
}

export function bridgeRow(r: SandboxRow) {
  return {
    rowId: r.rowId,
    bridgeId: r.bridgeId,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    status: r.status,
    name: r.name,
    buyerId: r.buyerId,
    organizerId: r.organizerId,
    entity: r.entity,
    columns: r.columns,
  };
}
