// Outbound Messages as Salesforce sends them (outbound messaging WSDL): when an Account is created (and,
// if asked, updated) a notification is queued; queued notifications go out batched, up to 100 per SOAP
// 1.1 message (`Content-Type: text/xml; charset=utf-8`, `SOAPAction: ""`), body
// `<notifications xmlns="http://soap.sforce.com/2005/09/outbound">` with OrganizationId, ActionId,
// SessionId (nil), EnterpriseUrl, PartnerUrl and `<Notification><Id>04l…</Id><sObject xsi:type="sf:Account">`.
// A delivery counts as acknowledged only when the answer is a SOAP envelope with `<Ack>true</Ack>`;
// otherwise every notification in it is retried after a growing delay, for up to 24 hours.

import type { FieldValue } from './field-types.ts';
import { KEY_PREFIXES } from './ids.ts';
import type { SalesforceStore, SObjectRecord, SObjectType } from './store.ts';

export interface OutboundSettings {
  /** Where to POST; unset = no outbound message configured. */
  endpointUrl?: string;
  /** The object the message is on. Default Account. */
  sobjectType?: SObjectType;
  /** Fields sent in each sObject (Id is always first). Default Id, Name, BillingCity, BillingState, Website. */
  fields?: string[];
  /** Also send when a record is updated (a Flow on "created or updated"). Default false. */
  onUpdate?: boolean;
  /** How long a notification waits for others to share its message. Default 20 ms. */
  batchWindowMs?: number;
  /** Notifications per message. Default (and Salesforce's maximum) 100. */
  maxPerMessage?: number;
  /** Delay before retry n (the last repeats). Default 15 s doubling to 2 h. */
  retryDelaysMs?: number[];
  /** Notifications older than this are dropped. Default 24 h. */
  maxAgeMs?: number;
  /** Request timeout. Default 60 s. */
  timeoutMs?: number;
  /** SessionId is sent nil unless this is set ("Send Session ID"). */
  sessionId?: string;
}

export interface OutboundDelivery {
  at: string;
  notificationIds: string[];
  recordIds: string[];
  /** 1 for the first try of every notification in it; the highest attempt number otherwise. */
  attempt: number;
  status?: number;
  acked: boolean;
  error?: string;
  requestBody: string;
  responseBody?: string;
}

interface Notification {
  id: string;
  recordId: string;
  sobject: string;
  queuedAt: number;
  attempts: number;
  dueAt: number;
}

const DEFAULT_RETRY_DELAYS_MS = [15, 30, 60, 120, 240, 480, 960, 1920, 3840, 7200].map((s) => s * 1000);
const DEFAULT_FIELDS = ['Id', 'Name', 'BillingCity', 'BillingState', 'Website'];

export function xmlEscape(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`,
  );
}

function soapValue(v: FieldValue): string {
  if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+0000$/.test(v))
    return v.replace('+0000', 'Z');
  return xmlEscape(String(v));
}

/** Is this answer an acknowledgement: a SOAP envelope whose body has `<Ack>true</Ack>`? */
export function isAck(status: number, body: string): boolean {
  return (
    status >= 200 &&
    status < 300 &&
    /<(?:[\w-]+:)?Envelope[\s>]/.test(body) &&
    /<(?:[\w-]+:)?Ack>\s*true\s*<\/(?:[\w-]+:)?Ack>/.test(body)
  );
}

export class OutboundSender {
  settings: OutboundSettings;
  readonly deliveries: OutboundDelivery[] = [];
  readonly actionId: string;
  readonly #store: SalesforceStore;
  readonly #instanceUrl: () => string;
  readonly #apiVersion: string;
  readonly #queue: Notification[] = [];
  readonly #unsubscribe: () => void;
  #timer: NodeJS.Timeout | undefined;
  #sending: Promise<void> | undefined;
  #closed = false;

  constructor(
    store: SalesforceStore,
    instanceUrl: () => string,
    settings: OutboundSettings = {},
    apiVersion = '62.0',
  ) {
    this.#store = store;
    this.#instanceUrl = instanceUrl;
    this.#apiVersion = apiVersion;
    this.settings = { ...settings };
    this.actionId = store.ids.next(KEY_PREFIXES.OutboundMessageAction);
    this.#unsubscribe = store.onChange((kind, record) => this.#onChange(kind, record));
  }

  configure(settings: OutboundSettings): void {
    this.settings = { ...this.settings, ...settings };
  }

  /** Notifications not yet acknowledged. */
  get pending(): number {
    return this.#queue.length;
  }

  #onChange(kind: string, record: SObjectRecord): void {
    const s = this.settings;
    if (this.#closed || !s.endpointUrl || record.type !== (s.sobjectType ?? 'Account')) return;
    if (kind !== 'created' && !(kind === 'updated' && s.onUpdate)) return;
    const now = Date.now();
    // A change joins the batch window already open, so records saved together leave in one message
    // however the clock ticks between them.
    const open = this.#queue.find((n) => n.attempts === 0 && n.dueAt > now);
    this.#queue.push({
      id: this.#store.ids.next(KEY_PREFIXES.OutboundNotification),
      recordId: record.id,
      sobject: this.#sobjectXml(record),
      queuedAt: now,
      attempts: 0,
      dueAt: open?.dueAt ?? now + (s.batchWindowMs ?? 20),
    });
    this.#schedule();
  }

  #sobjectXml(record: SObjectRecord): string {
    const fields = ['Id', ...(this.settings.fields ?? DEFAULT_FIELDS).filter((f) => f !== 'Id')];
    const parts = fields
      .map((f) => [f, record.values.get(f)] as const)
      .filter((e): e is readonly [string, FieldValue] => e[1] !== undefined && e[1] !== null)
      .map(([f, v]) => `<sf:${f}>${soapValue(v)}</sf:${f}>`);
    return `<sObject xsi:type="sf:${record.type}" xmlns:sf="urn:sobject.enterprise.soap.sforce.com">${parts.join('')}</sObject>`;
  }

  envelope(notifications: { id: string; sobject: string }[]): string {
    const base = this.#instanceUrl();
    const org15 = this.#store.orgId.slice(0, 15);
    const session = this.settings.sessionId
      ? `<SessionId>${xmlEscape(this.settings.sessionId)}</SessionId>`
      : '<SessionId xsi:nil="true"/>';
    return [
      '<?xml version="1.0" encoding="UTF-8"?>',
      '<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">',
      '<soapenv:Body>',
      '<notifications xmlns="http://soap.sforce.com/2005/09/outbound">',
      `<OrganizationId>${this.#store.orgId}</OrganizationId>`,
      `<ActionId>${this.actionId}</ActionId>`,
      session,
      `<EnterpriseUrl>${xmlEscape(`${base}/services/Soap/c/${this.#apiVersion}/${org15}`)}</EnterpriseUrl>`,
      `<PartnerUrl>${xmlEscape(`${base}/services/Soap/u/${this.#apiVersion}/${org15}`)}</PartnerUrl>`,
      ...notifications.map((n) => `<Notification><Id>${n.id}</Id>${n.sobject}</Notification>`),
      '</notifications>',
      '</soapenv:Body>',
      '</soapenv:Envelope>',
    ].join('\n');
  }

  #schedule(): void {
    if (this.#closed || this.#sending || this.#queue.length === 0) return;
    clearTimeout(this.#timer);
    const due = Math.min(...this.#queue.map((n) => n.dueAt));
    this.#timer = setTimeout(() => void this.#run(), Math.max(0, due - Date.now()) + 1);
  }

  #run(): Promise<void> {
    if (this.#sending) return this.#sending;
    const run = async () => {
      // Never finish synchronously: `#sending` must be set before the finally clears it.
      await Promise.resolve();
      try {
        for (;;) {
          const now = Date.now();
          const maxAge = this.settings.maxAgeMs ?? 24 * 3600 * 1000;
          for (let i = this.#queue.length - 1; i >= 0; i--)
            if ((this.#queue[i]?.queuedAt ?? now) + maxAge <= now) this.#queue.splice(i, 1);
          const due = this.#queue.filter((n) => n.dueAt <= now).slice(0, this.settings.maxPerMessage ?? 100);
          if (due.length === 0 || this.#closed) break;
          await this.#send(due);
        }
      } finally {
        this.#sending = undefined;
        this.#schedule();
      }
    };
    this.#sending = run();
    return this.#sending;
  }

  async #send(batch: Notification[]): Promise<void> {
    const body = this.envelope(batch);
    const delivery: OutboundDelivery = {
      at: new Date().toISOString(),
      notificationIds: batch.map((n) => n.id),
      recordIds: batch.map((n) => n.recordId),
      attempt: Math.max(...batch.map((n) => n.attempts)) + 1,
      acked: false,
      requestBody: body,
    };
    this.deliveries.push(delivery);
    for (const n of batch) n.attempts++;
    try {
      const res = await fetch(this.settings.endpointUrl ?? '', {
        method: 'POST',
        headers: { 'Content-Type': 'text/xml; charset=utf-8', SOAPAction: '""' },
        body,
        signal: AbortSignal.timeout(this.settings.timeoutMs ?? 60_000),
      });
      delivery.status = res.status;
      delivery.responseBody = await res.text();
      delivery.acked = isAck(res.status, delivery.responseBody);
    } catch (err) {
      delivery.error = err instanceof Error ? err.message : String(err);
    }
    if (delivery.acked) {
      for (const n of batch) this.#queue.splice(this.#queue.indexOf(n), 1);
      return;
    }
    const delays = this.settings.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    const now = Date.now();
    for (const n of batch) n.dueAt = now + (delays[Math.min(n.attempts - 1, delays.length - 1)] ?? 0);
  }

  /** Sends every queued notification now (ignoring retry delays) and waits for the answers. */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    await this.#sending;
    for (const n of this.#queue) n.dueAt = 0;
    await this.#run();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#timer);
    this.#unsubscribe();
  }
}
