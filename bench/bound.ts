// The bound of a backfill: how many accounts per second the upstream APIs' documented capacity allows,
// whatever calls we make. For each API, its sustainable requests per second × the records one request
// can carry ÷ the record operations one account needs. Our own call count never enters: a service that
// makes more calls than needed gets the same bound and a lower ratio to it.
// Sources: /work/shared/reference/crm-facts.md (HubSpot usage guidelines, Salesforce limits).

export const HUBSPOT_CAPACITY = {
  /** Private app, Professional/Enterprise: requests per rolling 10 s. */
  requestsPer10s: 190,
  /** Professional: requests per account per day (binds only a run of hours at the 10-s rate). */
  daily: 625_000,
  /** batch read, batch update, batch note create (with inline association): 100 records each. */
  recordsPerCall: 100,
} as const;

export const SALESFORCE_CAPACITY = {
  /** Enterprise: 100,000 + 1,000 per licence per rolling 24 h; we assume 100,000 (few licences). */
  dailyRequests: 100_000,
  /** The share of the allocation the service leaves to the org's other integrations. */
  headroom: 0.2,
  /** sObject Collections: 200 records per request. No per-second limit is documented. */
  recordsPerCall: 200,
} as const;

/** Record operations a new account needs in its CRM: one read, one field write, and its notes. */
export const recordOpsPerAccount = (notesPerAccount: number) => 2 + notesPerAccount;

export interface BoundInput {
  crm: 'hubspot' | 'salesforce';
  /** Notes created per finished account in the measured window (the data, not our calls). */
  notesPerAccount: number;
  /** The Buyer Intelligence rate the emulator is set to (requests per minute). */
  buyerIntelPerMinute: number;
  /** Buyer Intelligence requests per new buyer in the window (null when no new buyer). */
  buyerIntelCallsPerNewBuyer: number | null;
}

export interface Bound {
  /** Accounts per second each API allows. */
  byApi: { crm: number; buyerIntel: number };
  accountsPerSecond: number;
  boundBy: 'crm' | 'buyerIntel';
  /** How each was computed, for the report. */
  how: { crm: string; buyerIntel: string };
}

const r1 = (x: number) => Math.round(x * 10) / 10;

export function backfillBound(i: BoundInput): Bound {
  const ops = recordOpsPerAccount(i.notesPerAccount);
  let crm: number;
  let crmHow: string;
  if (i.crm === 'hubspot') {
    const perSecond = HUBSPOT_CAPACITY.requestsPer10s / 10;
    crm = (perSecond * HUBSPOT_CAPACITY.recordsPerCall) / ops;
    crmHow = `HubSpot ${perSecond} req/s × ${HUBSPOT_CAPACITY.recordsPerCall} records ÷ ${ops.toFixed(2)} record ops/account (1 read + 1 write + ${i.notesPerAccount.toFixed(2)} notes)`;
  } else {
    const perSecond = (SALESFORCE_CAPACITY.dailyRequests * (1 - SALESFORCE_CAPACITY.headroom)) / 86_400;
    crm = (perSecond * SALESFORCE_CAPACITY.recordsPerCall) / ops;
    crmHow = `Salesforce (${SALESFORCE_CAPACITY.dailyRequests} × ${1 - SALESFORCE_CAPACITY.headroom}) / 86,400 s = ${perSecond.toFixed(3)} req/s × ${SALESFORCE_CAPACITY.recordsPerCall} records ÷ ${ops.toFixed(2)} record ops/account`;
  }
  const biPerSecond = i.buyerIntelPerMinute / 60;
  const biCalls = i.buyerIntelCallsPerNewBuyer;
  const buyerIntel = biCalls && biCalls > 0 ? biPerSecond / biCalls : Number.POSITIVE_INFINITY;
  const biHow = `Buyer Intelligence ${r1(biPerSecond)} req/s ÷ ${biCalls ?? '–'} calls per new buyer`;
  const boundBy = crm <= buyerIntel ? 'crm' : 'buyerIntel';
  return {
    byApi: { crm: r1(crm), buyerIntel: Number.isFinite(buyerIntel) ? r1(buyerIntel) : buyerIntel },
    accountsPerSecond: r1(Math.min(crm, buyerIntel)),
    boundBy,
    how: { crm: crmHow, buyerIntel: biHow },
  };
}
