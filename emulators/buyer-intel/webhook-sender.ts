// The provider's webhooks, emulated: a bridge's "Webhook column" posts `bridge.row.created` (and, in the
// "Row Addition and Each Update" mode, `bridge.row.updated`) to one URL, signed per Standard Webhooks
// with both a `v1` HMAC (sandbox secret) and a `v1a` Ed25519 signature (sandbox key pair), and retried
// on any non-2xx or network failure. The provider publishes no schedule; Svix' (the reference Standard
// Webhooks sender) is the default, and tests shorten it.
import { generateKeyPairSync, type KeyObject, randomBytes, randomUUID } from 'node:crypto';
import type express from 'express';
import { z } from 'zod';
import { formatPublicKey, signStandardWebhook } from '../../src/signals/standard-webhooks.ts';
import type { SandboxCell, SandboxDataset, SandboxRow } from './data/dataset.ts';

export const DEFAULT_RETRY_SCHEDULE_MS = [
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3600_000,
  5 * 3600_000,
  10 * 3600_000,
  10 * 3600_000,
];

export type TriggerMode = 'created' | 'createdAndUpdated';
export type RowEventType = 'bridge.row.created' | 'bridge.row.updated';

export interface WebhookSenderOptions {
  /** `whsec_<base64>`; default: a random one per sandbox. */
  secret?: string;
  /** Ed25519; default: a fresh key pair per sandbox. */
  privateKey?: KeyObject;
  /** Delay before each retry, after the first attempt. */
  retryScheduleMs?: readonly number[];
  timeoutMs?: number;
  fetch?: typeof globalThis.fetch;
}

export interface DeliveryAttempt {
  at: string;
  /** HTTP status, or null when the request failed (refused, timed out). */
  status: number | null;
}

export interface Delivery {
  webhookId: string;
  type: RowEventType;
  rowId: string;
  /** The exact body sent (what the signatures cover). */
  body: string;
  attempts: DeliveryAttempt[];
  state: 'pending' | 'delivered' | 'failed';
}

export interface WebhookConfig {
  url: string | null;
  mode: TriggerMode;
  /** Which signatures to send; default both. */
  schemes: ('v1' | 'v1a')[];
}

export class SandboxWebhookSender {
  readonly secret: string;
  readonly publicKey: string;
  readonly deliveries: Delivery[] = [];
  #privateKey: KeyObject;
  #config: WebhookConfig = { url: null, mode: 'createdAndUpdated', schemes: ['v1', 'v1a'] };
  readonly #schedule: readonly number[];
  readonly #timeoutMs: number;
  readonly #fetch: typeof globalThis.fetch;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #timers = new Set<{ cancel(): void }>();
  #closed = false;

  constructor(options: WebhookSenderOptions = {}) {
    this.secret = options.secret ?? `whsec_${randomBytes(32).toString('base64')}`;
    this.#privateKey = options.privateKey ?? generateKeyPairSync('ed25519').privateKey;
    this.publicKey = formatPublicKey(this.#privateKey);
    this.#schedule = options.retryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS;
    this.#timeoutMs = options.timeoutMs ?? 15_000;
    this.#fetch = options.fetch ?? globalThis.fetch;
  }

  get config(): Readonly<WebhookConfig> {
    return this.#config;
  }

  configure(config: Partial<WebhookConfig>): Readonly<WebhookConfig> {
    this.#config = { ...this.#config, ...config };
    return this.#config;
  }

  /** Whether the configured trigger mode sends this event type. */
  sends(type: RowEventType): boolean {
    return !!this.#config.url && (type === 'bridge.row.created' || this.#config.mode === 'createdAndUpdated');
  }

  /**
   * Sends one row event (when a URL is configured and the mode covers it); `done` resolves once it is
   * delivered or given up. `null` when nothing was sent.
   */
  emitRowEvent(row: SandboxRow, type: RowEventType): { delivery: Delivery; done: Promise<Delivery> } | null {
    const url = this.#config.url;
    if (!url || !this.sends(type)) return null;
    const delivery: Delivery = {
      webhookId: `msg_${randomUUID().replaceAll('-', '')}`,
      type,
      rowId: row.rowId,
      body: JSON.stringify({
        type,
        timestamp: new Date().toISOString(),
        data: {
          rowId: row.rowId,
          name: row.name,
          bridgeId: row.bridgeId,
          updatedAt: row.updatedAt,
          status: row.status,
        },
      }),
      attempts: [],
      state: 'pending',
    };
    this.deliveries.push(delivery);
    const tracked = this.#deliver(url, delivery);
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
    return { delivery, done: tracked.then(() => delivery) };
  }

  /** Resolves once every delivery under way is delivered or given up. */
  async idle(): Promise<void> {
    while (this.#inFlight.size) await Promise.all([...this.#inFlight]);
  }

  /** Stops retrying: pending deliveries are given up. */
  close(): void {
    this.#closed = true;
    for (const t of this.#timers) t.cancel();
  }

  async #deliver(url: string, delivery: Delivery): Promise<void> {
    for (let attempt = 0; attempt <= this.#schedule.length; attempt++) {
      if (attempt > 0 && !(await this.#wait(this.#schedule[attempt - 1] ?? 0))) break;
      if (this.#closed) break;
      const status = await this.#send(url, delivery);
      delivery.attempts.push({ at: new Date().toISOString(), status });
      if (status !== null && status >= 200 && status < 300) {
        delivery.state = 'delivered';
        return;
      }
    }
    delivery.state = 'failed';
  }

  async #send(url: string, delivery: Delivery): Promise<number | null> {
    // Each attempt is signed afresh: the timestamp is the attempt's, as Standard Webhooks senders do.
    const schemes = this.#config.schemes;
    const headers = signStandardWebhook(
      {
        secret: schemes.includes('v1') ? this.secret : undefined,
        privateKey: schemes.includes('v1a') ? this.#privateKey : undefined,
      },
      delivery.webhookId,
      Math.floor(Date.now() / 1000),
      delivery.body,
    );
    try {
      const res = await this.#fetch(url, {
        method: 'POST',
        headers: {
          ...headers,
          'content-type': 'application/json',
          'user-agent': 'buyer-intel-sandbox-webhooks',
        },
        body: delivery.body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      });
      await res.arrayBuffer().catch(() => undefined);
      return res.status;
    } catch {
      return null;
    }
  }

  /** Waits `ms` unless closed meanwhile; false when closed. */
  #wait(ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(handle);
        resolve(!this.#closed);
      }, ms);
      timer.unref?.();
      const handle = {
        cancel: () => {
          clearTimeout(timer);
          this.#timers.delete(handle);
          resolve(false);
        },
      };
      this.#timers.add(handle);
    });
  }
}

// ---- Rows created and changed through the control plane (what a bridge's webhook column reports) ------

export interface NewRowInput {
  bridgeId: string;
  buyerId: string | null;
  name?: string;
  /** Cell values by column name; a column left out is empty. */
  columns?: Record<string, unknown>;
}

/** Adds a row to the data set (the sandbox's bridges keep filling) and returns it. */
export function addSandboxRow(dataset: SandboxDataset, input: NewRowInput): SandboxRow {
  const bridge = dataset.bridgesById.get(input.bridgeId);
  if (!bridge) throw new RangeError(`no bridge ${input.bridgeId}`);
  if (input.buyerId !== null && !dataset.buyersById.has(input.buyerId))
    throw new RangeError(`no buyer ${input.buyerId}`);
  const now = new Date().toISOString();
  const columns: Record<string, SandboxCell> = {};
  for (const c of bridge.columns) {
    const value = input.columns?.[c.name] ?? null;
    columns[c.name] = {
      value,
      status: value === null ? null : 'Processed',
      processedAt: value === null ? null : now,
    };
  }
  const rowId = randomUUID();
  const buyer = input.buyerId ? dataset.buyersById.get(input.buyerId) : undefined;
  const row: SandboxRow = {
    rowId,
    bridgeId: bridge.bridgeId,
    name: input.name ?? `${bridge.name}: ${buyer?.name ?? 'new entry'}`,
    createdAt: now,
    updatedAt: now,
    status: 'Processed',
    userStatus: 'New',
    buyerId: input.buyerId,
    organizerId: null,
    entity: input.buyerId ? { type: bridge.filterType, id: input.buyerId } : null,
    signalDate: now,
    hotness: 50,
    entryId: randomUUID(),
    entryName: input.name ?? bridge.name,
    triggeredAt: now,
    opportunityId: null,
    entryUrl: null,
    columns,
  };
  // The data set's collections are read-only to the routes; the control plane is their one writer.
  (dataset.rows as SandboxRow[]).push(row);
  const byBridge = dataset.rowsByBridge.get(bridge.bridgeId) as SandboxRow[] | undefined;
  if (byBridge) byBridge.push(row);
  else (dataset.rowsByBridge as Map<string, SandboxRow[]>).set(bridge.bridgeId, [row]);
  if (input.buyerId) {
    const byBuyer = dataset.rowsByBuyer.get(input.buyerId) as SandboxRow[] | undefined;
    if (byBuyer) byBuyer.push(row);
    else (dataset.rowsByBuyer as Map<string, SandboxRow[]>).set(input.buyerId, [row]);
  }
  (dataset.rowsById as Map<string, SandboxRow>).set(rowId, row);
  return row;
}

/** Changes a row's cells (when given) and marks it updated now. */
export function touchSandboxRow(
  dataset: SandboxDataset,
  rowId: string,
  columns: Record<string, unknown> = {},
): SandboxRow {
  const row = dataset.rowsById.get(rowId);
  if (!row) throw new RangeError(`no row ${rowId}`);
  const now = new Date().toISOString();
  for (const [name, value] of Object.entries(columns))
    row.columns[name] = { value, status: 'Processed', processedAt: now };
  row.updatedAt = now;
  return row;
}

const configSchema = z.strictObject({
  url: z.url().nullable().optional(),
  mode: z.enum(['created', 'createdAndUpdated']).optional(),
  schemes: z
    .array(z.enum(['v1', 'v1a']))
    .min(1)
    .optional(),
});
const newRowSchema = z.strictObject({
  bridgeId: z.string(),
  buyerId: z.string().nullable(),
  name: z.string().optional(),
  columns: z.record(z.string(), z.unknown()).optional(),
});
const touchSchema = z.strictObject({ columns: z.record(z.string(), z.unknown()).optional() });

/**
 * `/__sandbox` routes of the webhooks: read the signing keys and deliveries, point the webhook column at
 * a URL, add a row or change one (each sends its event in the background; GET shows how it went).
 */
export function mountWebhookControl(
  control: express.Router,
  parts: { dataset: SandboxDataset; webhooks: SandboxWebhookSender },
): void {
  const { dataset, webhooks } = parts;
  const bad = (res: express.Response, message: string) =>
    res.status(400).json({ error: 'invalid_request', message });
  control.get('/webhooks', (_req, res) => {
    res.json({
      ...webhooks.config,
      secret: webhooks.secret,
      publicKey: webhooks.publicKey,
      deliveries: webhooks.deliveries,
    });
  });
  control.put('/webhooks', (req, res) => {
    const parsed = configSchema.safeParse(req.body ?? {});
    if (!parsed.success) return bad(res, parsed.error.issues[0]?.message ?? 'invalid configuration');
    const { url, mode, schemes } = parsed.data;
    res.json(
      webhooks.configure({
        ...(url !== undefined ? { url } : {}),
        ...(mode ? { mode } : {}),
        ...(schemes ? { schemes } : {}),
      }),
    );
  });
  const emitted = (res: express.Response, row: SandboxRow, type: RowEventType, status: number) => {
    const sent = webhooks.emitRowEvent(row, type);
    res.status(status).json({
      row: { rowId: row.rowId, bridgeId: row.bridgeId, buyerId: row.buyerId, updatedAt: row.updatedAt },
      webhookId: sent?.delivery.webhookId ?? null,
    });
  };
  control.post('/rows', (req, res) => {
    const parsed = newRowSchema.safeParse(req.body ?? {});
    if (!parsed.success) return bad(res, parsed.error.issues[0]?.message ?? 'invalid row');
    try {
      emitted(res, addSandboxRow(dataset, parsed.data), 'bridge.row.created', 201);
    } catch (err) {
      bad(res, (err as Error).message);
    }
  });
  control.post('/rows/:rowId/touch', (req, res) => {
    const parsed = touchSchema.safeParse(req.body ?? {});
    if (!parsed.success) return bad(res, parsed.error.issues[0]?.message ?? 'invalid change');
    try {
      emitted(
        res,
        touchSandboxRow(dataset, String(req.params.rowId), parsed.data.columns),
        'bridge.row.updated',
        200,
      );
    } catch (err) {
      res.status(404).json({ error: 'not_found', message: (err as Error).message });
    }
  });
}
