// The one interface every CRM connector implements. The pipeline talks only to this: no CRM SDK type
// crosses it, and every value is a plain string/number/null so every CRM fits.

import { type FailureFacts, IntegrationError } from '../src/shared/errors.ts';

/** A CRM's kind, as its descriptor in connectors/registry.ts names it ('hubspot', 'salesforce', …). */
export type CrmKind = string;

/**
 * The registry ids an account may carry, each in a CRM field a person fills: NCES (a school district
 * or school), IPEDS (a college), Census (PID6 or GID) and the provider's own buyer id.
 */
export type AccountIdKind = 'nces' | 'ipeds' | 'census' | 'buyer';

/** An account's ids as the CRM holds them: text, trimmed (an NCES id keeps its leading zeros). */
export type AccountIds = Partial<Record<AccountIdKind, string>>;

/** A CRM field a connector reads an account id from. `ours`: named by us, so `setup` creates it. */
export interface AccountIdField {
  kind: AccountIdKind;
  name: string;
  ours: boolean;
}

/** What the pipeline needs of a CRM account (a HubSpot company, a Salesforce Account). */
export interface AccountSnapshot {
  id: string;
  name: string | null;
  /** The state as the CRM holds it: a code, a name, or anything a person typed. */
  state: string | null;
  city: string | null;
  website: string | null;
  /** The address's zip (postal code) and street, where the CRM keeps them: evidence for matching. */
  zip?: string | null;
  street?: string | null;
  /** The organisation's email domain, where the CRM keeps one apart from its website. */
  emailDomains?: string[];
  /** Values of the requested CRM fields, keyed by CRM field name; null when empty. */
  fields: Record<string, string | null>;
  /** The ids in the connector's id fields (`CrmConnector.idFields`); an empty field is left out. */
  ids?: AccountIds;
  /** The CRM user who owns the account (HubSpot `hubspot_owner_id`, Salesforce `OwnerId`); absent: none. */
  ownerId?: string;
}

/** A CRM user who can own accounts (a HubSpot owner, a Salesforce User), as `listOwners` reads them. */
export interface CrmOwner {
  /** What `AccountSnapshot.ownerId` holds for the accounts this user owns. */
  id: string;
  email: string | null;
  name: string | null;
  /** False for a deactivated user (HubSpot: archived; Salesforce: IsActive false). */
  active: boolean;
  /**
   * The CRM connection's own user (the integration user the sync signs in as): it owns what the
   * sync creates, but it is no rep, so it gets no digest. Unset: not known to be.
   */
  integration?: boolean;
}

/**
 * New values per CRM field for one account. `null` (or "") clears a field, so a field can be put back
 * to empty exactly as it was (undo).
 */
export interface AccountUpdate {
  accountId: string;
  fields: Record<string, string | null>;
}

export interface WriteFailure {
  status: number | undefined;
  message: string;
  /** True when sending the same write again cannot succeed (unknown field, deleted account...). */
  permanent: boolean;
}

export type UpdateResult =
  | { accountId: string; ok: true }
  | { accountId: string; ok: false; error: WriteFailure };

/** An activity note to attach to an account (a HubSpot note, a Salesforce Task or ContentNote). */
export interface NoteDraft {
  accountId: string;
  /** Deterministic per buyer + signal: the same signal never becomes two notes on one account. */
  dedupeKey: string;
  title: string;
  /** Plain text, lines separated by \n; connectors render it as their CRM expects. */
  body: string;
  /** When the signal happened (ISO-8601). */
  occurredAt: string;
  /** Set: an open task assigned to a person (a follow-up) instead of a note; same key, same dedupe. */
  task?: FollowUpTask;
}

export type TaskPriority = 'high' | 'medium' | 'low';

/** Who must follow a signal up, by when and how urgently. */
export interface FollowUpTask {
  /** The CRM user the task is assigned to (the account's owner, or a configured one). */
  ownerId: string;
  /** YYYY-MM-DD. */
  dueDate: string;
  priority: TaskPriority;
}

/**
 * What became of a follow-up task we created (its id as `createNotes` answered it): still `open`,
 * `completed` by a person, or `deleted`. `status`: the CRM's own status value, as it holds it.
 */
export interface TaskState {
  noteId: string;
  state: 'open' | 'completed' | 'deleted';
  status: string | null;
}

export type NoteResult =
  | { dedupeKey: string; ok: true; noteId: string }
  | { dedupeKey: string; ok: false; error: WriteFailure };

/** A note or Task we created (its id as `createNotes` answered it) and the account it is on. */
export interface NoteRef {
  accountId: string;
  noteId: string;
}

/** A note on an account: the CRM's id and our dedupe key. */
export interface ExistingNote {
  noteId: string;
  dedupeKey: string;
}

/**
 * What became of one note `removeNotes` was asked to remove. `already_gone`: the CRM says it no longer
 * exists (deleted by a person, or by an earlier removal), so nothing was left to do.
 */
export type NoteRemovalResult =
  | { accountId: string; noteId: string; outcome: 'removed' }
  | { accountId: string; noteId: string; outcome: 'already_gone' }
  | { accountId: string; noteId: string; outcome: 'failed'; error: WriteFailure };

export type FieldType = 'string' | 'text' | 'number' | 'date' | 'datetime' | 'enumeration' | 'bool' | 'url';

/** A CRM field we own, created by `setup`. */
export interface FieldDefinition {
  name: string;
  label: string;
  type: FieldType;
  description: string;
  /** For enumerations. */
  options?: { value: string; label: string }[];
}

/** What a CRM's fields of our types hold (the fields `setup` creates); values are fitted to it. */
export interface FieldLimits {
  /** Characters of a `string` or `url` field. */
  stringLength: number;
  /** Characters of a `text` (long text) field. */
  textLength: number;
  /** Digits of a `number` field: in all (`precision`) and after the point (`scale`); none: unbounded. */
  number?: { precision: number; scale: number };
  /**
   * A `bool` field has no empty state: it reads false until set (a Salesforce Checkbox is never null).
   * false then counts as empty — for `fill-empty`, and for `ours` while we never wrote the field —
   * or such a field could never be filled.
   */
  boolReadsFalseWhenEmpty?: boolean;
}

export interface EnsureFieldsResult {
  created: string[];
  existing: string[];
}

/** One page of accounts for backfill. */
export interface AccountPage {
  accounts: AccountSnapshot[];
  /** Pass as `after` to read the next page; null after the last. Durable: a backfill resumes from it. */
  next: string | null;
}

export interface CrmConnector {
  readonly kind: CrmKind;
  /** The portal id / org id this connector writes to. */
  readonly tenant: string;
  /** Largest batch `updateAccounts` takes in one call. */
  readonly maxUpdateBatch: number;
  /** Largest batch `createNotes` takes in one call. */
  readonly maxNoteBatch: number;
  /** Largest batch `removeNotes` takes in one call. */
  readonly maxNoteRemovalBatch: number;
  /** The fields each account's ids are read from (none: the connector reads no ids). */
  readonly idFields?: readonly AccountIdField[];
  /** Largest batch `getAccounts` reads in one call. */
  readonly maxReadBatch: number;
  /** Largest batch of accounts `existingNoteKeysOf` reads the note keys of at once. */
  readonly maxNoteKeyBatch: number;
  /** What our fields in this CRM hold: the pipeline fits each value to it before writing. */
  readonly fieldLimits?: FieldLimits;
  /**
   * The name this CRM knows one of our fields by, for what a person reads (a dry run): Salesforce's API
   * name (`BuyerIntel_Population__c`) for `buyer_intel_population`. Absent: the name itself.
   */
  fieldName?(field: string): string;
  /**
   * Where a person opens the account in the CRM's own screens (HubSpot's company page, Salesforce's
   * Lightning record page), for the links on the admin console. Absent: the CRM has no such page.
   */
  recordUrl?(accountId: string): string;
  /**
   * Reads, once a connection, what `recordUrl` needs to know of the tenant (HubSpot: the portal's UI
   * domain, app-eu1.hubspot.com for an EU portal). Never rejects and waits briefly: until it has an
   * answer, `recordUrl` gives the CRM's default. Absent: `recordUrl` needs nothing.
   */
  prepareRecordUrls?(): Promise<void>;

  /** Reads one account with the given CRM fields. Throws AccountNotFoundError for an unknown id. */
  getAccount(accountId: string, fieldNames: readonly string[]): Promise<AccountSnapshot>;
  /**
   * Reads up to `maxReadBatch` accounts by id with the given CRM fields and their ids in one call (jobs
   * share it; an undo checks what the CRM holds now): the accounts that exist, each once, in input
   * order; an unknown or deleted id is left out. More ids than the maximum throw a RangeError and read
   * nothing: the caller splits.
   */
  getAccounts(accountIds: readonly string[], fieldNames: readonly string[]): Promise<AccountSnapshot[]>;
  /**
   * Reads accounts a page at a time in a stable order (backfill). `after` is the previous page's
   * `next`; `limit` is capped at what the CRM allows in one call.
   */
  listAccounts(
    fieldNames: readonly string[],
    page?: { after?: string | null; limit?: number },
  ): Promise<AccountPage>;
  /** Writes up to `maxUpdateBatch` accounts in one call; a result per account, in input order. */
  updateAccounts(updates: readonly AccountUpdate[]): Promise<UpdateResult[]>;
  /** The dedupe keys of notes already on the account (read from the CRM, not from our own state). */
  existingNoteKeys(accountId: string): Promise<Set<string>>;
  /**
   * `existingNoteKeys` for up to `maxNoteKeyBatch` accounts at once (jobs share it), in as few calls as
   * the CRM allows: an entry per distinct id, its keys each once. An account without notes, and an id
   * the CRM does not know, have none. More ids than the maximum throw a RangeError: the caller splits.
   */
  existingNoteKeysOf(accountIds: readonly string[]): Promise<Map<string, string[]>>;
  /**
   * The notes on up to `maxNoteKeyBatch` accounts with their ids (as `existingNoteKeysOf`): what settles
   * a note whose creation was never recorded (the process died between the call and its record) with
   * the id an undo removes it by. A connector without it leaves such a note pending.
   */
  existingNotesOf?(accountIds: readonly string[]): Promise<Map<string, ExistingNote[]>>;
  /** Creates up to `maxNoteBatch` notes, each linked to its account; a result per note, in input order. */
  createNotes(notes: readonly NoteDraft[]): Promise<NoteResult[]>;
  /**
   * Removes up to `maxNoteRemovalBatch` notes we created (HubSpot archives them; Salesforce deletes
   * them to its recycle bin); a result per ref, in input order. Idempotent: removing a note again
   * answers `already_gone`. More refs than the maximum throw a RangeError and remove nothing: the
   * caller splits its batches, as for every other write.
   */
  removeNotes(refs: readonly NoteRef[]): Promise<NoteRemovalResult[]>;
  /**
   * The CRM's users who can own accounts, with their email and name (per-owner digests); read at most
   * every few minutes (connectors/owner-cache.ts), so a digest run over many accounts asks once.
   */
  listOwners(): Promise<CrmOwner[]>;
  /** Largest batch `taskStates` reads in one call. */
  readonly maxTaskStateBatch: number;
  /**
   * Reads the state of follow-up tasks we created (ids as `createNotes` answered them), a result per
   * id in input order; a task the CRM no longer holds is `deleted`. More ids than the maximum throw a
   * RangeError: the caller splits.
   */
  taskStates(noteIds: readonly string[]): Promise<TaskState[]>;
  /** Creates our fields (and their group) where missing; idempotent. */
  ensureFields(fields: readonly FieldDefinition[]): Promise<EnsureFieldsResult>;
}

/** The account does not exist (or was deleted): a job for it can never succeed. */
export class AccountNotFoundError extends IntegrationError {
  readonly accountId: string;
  constructor(accountId: string, message = `CRM account not found: ${accountId}`) {
    super(message, { permanent: true, status: 404 });
    this.accountId = accountId;
  }
}

/** The CRM refused our credentials: permanent until they change. */
export class CrmAuthError extends IntegrationError {
  constructor(
    message: string,
    status?: number,
    facts: Pick<FailureFacts, 'requestId' | 'missingPermissions'> = {},
  ) {
    super(message, { ...facts, permanent: true, status });
  }
}

/** The CRM answered 429 (or its equivalent): wait `retryAfterMs`, do not spend an attempt. */
export class CrmRateLimitError extends IntegrationError {
  declare readonly retryAfterMs: number;
  readonly policy: string | undefined;
  constructor(
    message: string,
    retryAfterMs: number,
    policy?: string,
    facts: Pick<FailureFacts, 'status' | 'requestId'> = {},
  ) {
    // One portal's or org's limit: only that tenant's work has to wait.
    super(message, { ...facts, permanent: false, retryAfterMs, limit: 'tenant' });
    this.policy = policy;
  }
}

// ---- Inbound events: what a CRM tells us about its accounts ----------------------------------------

/** One HTTP request as the CRM sent it: the raw body, because signatures cover the exact bytes. */
export interface InboundRequest {
  method: string;
  /** The full URL the CRM called (scheme, host, path and query). */
  url: string;
  /** Lower-case header names. */
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
}

/** One CRM account, as every layer names it: its CRM, its tenant (portal or org id) and its id. */
export interface AccountRef {
  crm: CrmKind;
  /** Portal id / org id. */
  tenant: string;
  accountId: string;
}

/** A CRM account that was created or changed, as one of the CRM's events reported it. */
export interface AccountEvent extends AccountRef {
  change: 'created' | 'updated';
  /**
   * Parts that, after crm and tenant, name the work this event asks for: a re-delivery of the same
   * event (or a duplicate within one delivery) yields the same parts, so it becomes no new job.
   */
  dedupeParts: (string | number)[];
  /** For the operator: which event caused the work, e.g. `company.creation event 123`. */
  cause: string;
}

export type InboundRefusal = { ok: false; status: 400 | 401 | 403 | 413; error: string; message: string };

export type InboundParseResult =
  | {
      ok: true;
      received: number;
      events: AccountEvent[];
      /**
       * What names this delivery so that the CRM's re-delivery of it is recognised as the same one (its
       * event ids, say), when a re-delivery's body differs (a retry counter); by default the raw body.
       */
      deliveryId?: string | undefined;
    }
  | InboundRefusal;

/** A check over the body's bytes in the order they arrive: `end` says whether they pass. */
export interface InboundBodyCheck {
  update(chunk: Buffer): void;
  end(): InboundRefusal | undefined;
}

/** What to answer the CRM: each CRM has its own acknowledgement and fault formats. */
export interface InboundReply {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Verifies and parses one CRM's event deliveries (HubSpot webhooks, Salesforce Outbound Messages).
 * Pure: no I/O, so the receiver decides when the events are safely queued before acknowledging.
 */
export interface InboundEventHandler {
  readonly kind: CrmKind;
  /** The media types a delivery may declare (`Content-Type`, parameters aside); others answer 415. */
  readonly contentTypes: readonly string[];
  /** Checks authenticity (signature, org) and shape; events we must not act on are left out. */
  parse(request: InboundRequest): InboundParseResult;
  /**
   * Checks what can be checked before the body is read (a token in the URL, a header), so that an
   * unauthenticated caller costs no body read and no parse; undefined: go on.
   */
  admits?(request: Omit<InboundRequest, 'body'>): InboundRefusal | undefined;
  /**
   * A signature check fed the body's bytes as they arrive (an HMAC updated per chunk), so that a
   * forged delivery is refused without the body ever being held, decoded or parsed; `parse` still
   * checks it whole. Undefined: the body goes to `parse` alone.
   */
  bodyCheck?(request: Omit<InboundRequest, 'body'>): InboundBodyCheck;
  /** The largest body this CRM sends (its batch limit with room); the receiver's cap when smaller. */
  readonly maxBodyBytes?: number;
  /** The events are in the queue: acknowledge so the CRM stops re-delivering. */
  accepted(summary: {
    received: number;
    enqueued: number;
    ignored: number;
    /** Events whose job was already queued (a re-delivery): not queued again. */
    duplicates?: number;
  }): InboundReply;
  /** The delivery is bad: the CRM's error format, status 4xx. */
  rejected(failure: { status: number; error: string; message: string }): InboundReply;
  /** We could not queue the events: an answer that makes the CRM retry later. */
  unavailable(): InboundReply;
}
