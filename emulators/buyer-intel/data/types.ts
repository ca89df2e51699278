// The records of the sandbox's data set, in one module that imports no builder, so that builders and
// the data set can share them without import cycles.
import type {
  BridgeFilterType,
  BuyerType,
  COLUMN_TYPES,
  FieldBaseFormat,
  ProcessingStatus,
  RowStatus,
} from '../../../src/buyer-intel/enums.ts';
import type { BuyerField } from '../../../src/buyer-intel/fields.ts';

export interface SandboxBuyer {
  id: string;
  name: string;
  type: BuyerType;
  countryCode: 'US';
  stateCode: string;
  stateName: string;
  city: string | null;
  county: string | null;
  url: string | null;
  emailDomains: string[];
  linkedinSlug: string | null;
  logoPath: string | null;
  tags: string[];
  fromSourceFile: boolean;
  parentBuyerId: string | null;
}

export interface SandboxColumn {
  columnId: string;
  bridgeId: string;
  name: string;
  prompt: string;
  type: (typeof COLUMN_TYPES)[number];
  fieldFormat: {
    baseFormat: FieldBaseFormat;
    description: string | null;
    enumerationValues: { value: string; label: string }[] | null;
    currency: 'USD' | null;
    listElementBaseFormat: FieldBaseFormat | null;
    outputFields: { name: string; type: FieldBaseFormat; description: string | null }[] | null;
  };
  index: number;
  key: string | null;
}

export interface SandboxBridge {
  bridgeId: string;
  name: string;
  userId: string;
  createdBy: string;
  filterType: BridgeFilterType;
  status: 'Open' | 'Matching' | 'Draft';
  createdAt: string;
  updatedAt: string;
  sharedWithAll: boolean;
  creditUsage: number;
  columns: SandboxColumn[];
}

export interface SandboxCell {
  value: unknown;
  status: ProcessingStatus | null;
  processedAt: string | null;
}

export interface SandboxRow {
  readonly rowId: string;
  readonly bridgeId: string;
  readonly name: string;
  readonly createdAt: string;
  /** Writable: setBridgeRowStatus advances it. */
  updatedAt: string;
  readonly status: ProcessingStatus;
  /** Writable: setBridgeRowStatus changes it. */
  userStatus: RowStatus;
  readonly buyerId: string | null;
  readonly organizerId: string | null;
  readonly entity: { type: BridgeFilterType; id: string } | null;
  readonly signalDate: string;
  readonly hotness: number;
  readonly entryId: string;
  readonly entryName: string;
  readonly triggeredAt: string;
  readonly opportunityId: string | null;
  readonly entryUrl: string | null;
  /** Keyed by column name, one entry per column of the row's bridge. */
  readonly columns: Record<string, SandboxCell>;
}

export interface SandboxDataset {
  seed: number;
  now: Date;
  buyers: readonly SandboxBuyer[];
  buyersById: ReadonlyMap<string, SandboxBuyer>;
  bridges: readonly SandboxBridge[];
  bridgesById: ReadonlyMap<string, SandboxBridge>;
  rows: readonly SandboxRow[];
  rowsByBridge: ReadonlyMap<string, readonly SandboxRow[]>;
  rowsByBuyer: ReadonlyMap<string, readonly SandboxRow[]>;
  rowsById: ReadonlyMap<string, SandboxRow>;
  /** All 179 BuyerField values of one buyer, computed deterministically on demand (cached). Unset attributes are null. */
  attributesOf(buyerId: string): Readonly<Record<BuyerField, unknown>> | undefined;
}
