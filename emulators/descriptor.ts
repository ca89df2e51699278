// What one CRM's emulator supplies to the tools around it, behind one descriptor per folder
// (emulators/<kind>/index.ts) and one line in emulators/registry.ts — the emulators' counterpart of
// connectors/descriptor.ts. `npm run sandbox`, `npm run demo`, sandboxSettings (the bench and the tests),
// startTestService, the conformance check and the compose test iterate over the registry, so none of
// them names a CRM and a new one needs no edit there.
import type { ConformanceRules } from './shared/conformance-rules.ts';

/** An emulator that listens: where it answers, and how to stop it. */
export interface RunningEmulator {
  url: string;
  close(): Promise<void>;
}

/** An account as a person types it into any CRM. */
export interface EmulatedAccount {
  name: string;
  state?: string;
  /** The account's web address (a CRM that keeps a domain takes the host name). */
  website?: string;
}

/** A follow-up task on an account, as the CRM shows it to its owner. */
export interface EmulatedTask {
  id: string;
  subject: string;
  owner: string;
  due: string;
  priority: string;
}

/** A user who can own accounts (a rep). */
export interface EmulatedPerson {
  email: string;
  firstName: string;
  lastName: string;
}

/** The reference documents every answer of the emulator is checked against (emulators/README.md). */
export interface ConformanceReference {
  /** The API's name in the conformance report. */
  api: string;
  /** Files under test/fixtures/reference/, each with its row in SOURCES.md. */
  documents: readonly string[];
  /**
   * The sourced rules beyond the documents (the statuses and error bodies, headers, excused divergences
   * and undocumented routes the vendor documents elsewhere), in the emulator's own folder
   * (emulators/<kind>/conformance-rules.ts): the check names no API. None: the documents alone.
   */
  rules?: ConformanceRules;
}

export interface EmulatorDescriptor<R extends RunningEmulator = RunningEmulator, E = R> {
  /** The CRM kind of its connector (connectors/registry.ts). */
  readonly kind: string;
  /** For people: "HubSpot emulator". */
  readonly label: string;
  /** The demo's heading over its accounts' table, e.g. "HubSpot companies (notes = …):". */
  readonly demoHeading: string;
  /**
   * Its port in `npm run sandbox` (`--<kind>-port`): a free one in the sandbox's range, 4010–4049, which
   * docker-compose.yml's sandbox service publishes whole (test/docker/compose.unit.test.ts); 0: it
   * listens on none (an in-process CRM).
   */
  readonly port: number;
  readonly conformance: ConformanceReference;
  /**
   * Starts one on `port` (0: any free one). `sandbox`: the long-lived `npm run sandbox`, whose printed
   * credentials must keep working after a restart (fixed tokens where the emulator would issue new ones).
   */
  start(options?: { port?: number; host?: string; sandbox?: boolean }): Promise<R>;
  /**
   * The CRM's configuration section (what connectors/<kind>/config.ts reads) pointing the service at
   * `endpoint`: a running emulator, or the plain data of one (the bench passes it between processes).
   */
  settings(endpoint: E): unknown;
  /** The tenant id (portal, org, …) the service knows a running one by, once pointed at it. */
  tenantOf(running: R): string;
  /**
   * What the sandbox prints of it: its heading, its example requests (`try: curl …`, reading the seeded
   * account `firstId`), and the `export` lines of its variables.
   */
  describe(running: R, firstId: string): { heading: string; examples: string[]; exports: string[] };
  /**
   * Creates an account; `imported`: as an import creates it (the sandbox's seed, sent nowhere),
   * otherwise as a person in the CRM's UI. `owner`: a person's id from addOwner. Returns its id.
   */
  createAccount(running: R, account: EmulatedAccount, how: { imported: boolean; owner?: string }): string;
  /**
   * Sends every inbound event from now on to the service's receiver under `serviceUrl` (accounts
   * created before stay unsent); the target, for people. `batchWindowMs` shortens a batching sender's
   * window (the demo's).
   */
  sendEventsTo(running: R, serviceUrl: string, options?: { batchWindowMs?: number }): string;
  /** The service variables the emulator's events need beyond its config section (their secrets). */
  readonly serviceExports: readonly string[];
  /** Adds a user who can own accounts; its id. */
  addOwner(running: R, person: EmulatedPerson): string;
  /** Gives an account to an owner, as a person would. */
  setOwner(running: R, accountId: string, owner: string): void;
  /** Notes and tasks on the account (what enrichment left there). */
  activityCount(running: R, accountId: string): number;
  /** The open and done tasks of `owner` on the account. */
  tasksOf(running: R, accountId: string, owner: string): EmulatedTask[];
  /** A person marks a task done. */
  completeTask(running: R, taskId: string): void;
  /** The API calls it answered since it started. */
  calls(running: R): number;
  /** The demo's accounts in this CRM: the kinds of names sales teams really have. */
  readonly demoAccounts: readonly EmulatedAccount[];
}
