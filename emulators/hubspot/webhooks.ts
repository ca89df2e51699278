// Sends webhooks the way HubSpot does for an app's subscriptions: company.creation and
// company.propertyChange (one subscription per property). Events are batched (a JSON array of up to 100
// events per request), signed with the v3 scheme (X-HubSpot-Signature-v3 = base64 HMAC-SHA256 of
// method + URI + body + timestamp under the app's client secret, X-HubSpot-Request-Timestamp in ms; the
// v1 X-HubSpot-Signature is sent too), and retried up to 10 times with growing, randomized delays on a
// non-2xx answer, a connection failure, or no answer within 5 s; `attemptNumber` counts from 0.
// A creation event carries changeFlag CREATED; property-change events carry propertyName/propertyValue.
import { createHash, createHmac } from 'node:crypto';
import { seededRandom } from '../shared/faults.ts';
import type { ChangeSource, HubSpotStore, StoreEvent } from './store.ts';

export interface WebhookSettings {
  /** Where events are POSTed; nothing is sent until it is set. */
  targetUrl?: string;
  /** Subscribe to company.creation. Default true. */
  creation?: boolean;
  /** Properties with a company.propertyChange subscription. Default ["name", "domain"]. */
  propertyChanges?: string[];
  /** Also send propertyChange events for subscribed properties set when a company is created. Default true. */
  propertyChangeOnCreate?: boolean;
  /** How long events gather before a batch is sent. Default 50 ms. */
  batchWindowMs?: number;
  /** Events per request. Default 100. */
  maxBatchSize?: number;
  /** An answer slower than this counts as a failure. Default 5,000 ms. */
  timeoutMs?: number;
  /** Retries after the first attempt. Default 10. */
  maxRetries?: number;
  /** Delay before retry n (0-based); an array or a function. Default: growing delays over ~24 hours. */
  retryDelaysMs?: number[] | ((retry: number) => number);
  /** Requests in flight at once. Default 10 (HubSpot's default maxConcurrentRequests). */
  maxConcurrent?: number;
}

export interface WebhookEvent {
  eventId: number;
  subscriptionId: number;
  portalId: number;
  appId: number;
  occurredAt: number;
  subscriptionType: string;
  attemptNumber: number;
  objectId: number;
  propertyName?: string;
  propertyValue?: string;
  changeFlag?: string;
  changeSource: ChangeSource;
  sourceId?: string;
}

export interface DeliveryAttempt {
  attemptNumber: number;
  startedAt: number;
  /** The X-HubSpot-Request-Timestamp sent. */
  timestamp: string;
  status?: number;
  error?: string;
  durationMs: number;
}

export interface WebhookDelivery {
  id: number;
  url: string;
  /** The events as first sent (attemptNumber 0). */
  events: WebhookEvent[];
  attempts: DeliveryAttempt[];
  state: 'queued' | 'in-flight' | 'retry-scheduled' | 'delivered' | 'failed';
  lastStatus?: number;
  lastError?: string;
}

export interface WebhookApp {
  appId: number;
  portalId: number;
  clientSecret: string;
}

// ~23 hours in all, like HubSpot's "10 retries over 24 hours".
const DEFAULT_RETRY_DELAYS_MS = [60, 120, 300, 600, 1800, 3600, 7200, 14_400, 21_600, 28_800].map(
  (s) => s * 1000,
);

/**
 * HubSpot decodes these escapes in the URI before signing (v3). Written again here rather than
 * imported from src/webhooks on purpose: the emulator signs and our receiver verifies, and a shared
 * mistake would pass every test.
 */
const SIGNING_DECODES: Record<string, string> = {
  '%3A': ':',
  '%2F': '/',
  '%3F': '?',
  '%40': '@',
  '%21': '!',
  '%24': '$',
  '%27': "'",
  '%28': '(',
  '%29': ')',
  '%2A': '*',
  '%2C': ',',
  '%3B': ';',
};

export function signatureV3(
  secret: string,
  method: string,
  uri: string,
  body: string,
  timestamp: string,
): string {
  const decoded = uri.replace(
    /%3A|%2F|%3F|%40|%21|%24|%27|%28|%29|%2A|%2C|%3B/gi,
    (m) => SIGNING_DECODES[m.toUpperCase()] ?? m,
  );
  return createHmac('sha256', secret)
    .update(`${method}${decoded}${body}${timestamp}`, 'utf8')
    .digest('base64');
}

export class WebhookSender {
  readonly app: WebhookApp;
  settings: Required<Omit<WebhookSettings, 'targetUrl' | 'retryDelaysMs'>> & {
    targetUrl?: string;
    retryDelaysMs: number[] | ((retry: number) => number);
  };
  readonly #deliveries: WebhookDelivery[] = [];
  readonly #subscriptionIds = new Map<string, number>();
  readonly #random = seededRandom(29);
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #controllers = new Set<AbortController>();
  readonly #queue: { delivery: WebhookDelivery; attemptNumber: number }[] = [];
  readonly #waiters = new Set<() => void>();
  #pending: WebhookEvent[] = [];
  #batchTimer: NodeJS.Timeout | undefined;
  #inFlight = 0;
  #nextEventId: number;
  #nextDeliveryId = 1;
  #closed = false;
  readonly #unsubscribe: () => void;

  constructor(store: HubSpotStore, app: WebhookApp, settings: WebhookSettings = {}) {
    this.app = app;
    this.settings = {
      creation: true,
      propertyChanges: ['name', 'domain'],
      propertyChangeOnCreate: true,
      batchWindowMs: 50,
      maxBatchSize: 100,
      timeoutMs: 5000,
      maxRetries: 10,
      retryDelaysMs: DEFAULT_RETRY_DELAYS_MS,
      maxConcurrent: 10,
      ...settings,
    };
    this.#nextEventId = 1_200_000_000 + Math.floor(this.#random() * 1_000_000);
    this.#unsubscribe = store.onChange((event) => this.#onStoreEvent(event));
  }

  /** Change settings at run time (e.g. the target URL once a test's receiver listens). */
  configure(settings: WebhookSettings): void {
    this.settings = { ...this.settings, ...settings };
  }

  /** Every batch sent or being sent, oldest first. */
  get deliveries(): readonly WebhookDelivery[] {
    return this.#deliveries;
  }

  /** The subscription id HubSpot would show for a subscription (stable per type and property). */
  subscriptionId(subscriptionType: string, propertyName?: string): number {
    const key = propertyName ? `${subscriptionType}:${propertyName}` : subscriptionType;
    let id = this.#subscriptionIds.get(key);
    if (id === undefined) {
      id = 2_641_000 + this.#subscriptionIds.size + 1;
      this.#subscriptionIds.set(key, id);
    }
    return id;
  }

  /** Sends the gathering batch now instead of at the end of the batch window. */
  flush(): void {
    if (this.#batchTimer) {
      clearTimeout(this.#batchTimer);
      this.#timers.delete(this.#batchTimer);
      this.#batchTimer = undefined;
    }
    const url = this.settings.targetUrl;
    const events = this.#pending;
    this.#pending = [];
    if (!url || !events.length) {
      this.#notify();
      return;
    }
    for (let i = 0; i < events.length; i += this.settings.maxBatchSize) {
      const delivery: WebhookDelivery = {
        id: this.#nextDeliveryId++,
        url,
        events: events.slice(i, i + this.settings.maxBatchSize),
        attempts: [],
        state: 'queued',
      };
      this.#deliveries.push(delivery);
      this.#queue.push({ delivery, attemptNumber: 0 });
    }
    this.#pump();
  }

  /** Resolves once nothing is gathering, queued, in flight or waiting for a retry. */
  idle(timeoutMs = 10_000): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(done);
        reject(new Error(`webhooks still busy after ${timeoutMs} ms`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.#waiters.add(done);
    });
  }

  /** Stops sending: cancels the batch window, scheduled retries and requests in flight. */
  close(): void {
    this.#closed = true;
    this.#unsubscribe();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const controller of this.#controllers) controller.abort();
    this.#queue.length = 0;
    this.#pending = [];
    this.#notify();
  }

  #onStoreEvent(event: StoreEvent): void {
    if (this.#closed || event.objectType !== 'companies') return;
    const common = {
      portalId: this.app.portalId,
      appId: this.app.appId,
      occurredAt: event.occurredAt,
      attemptNumber: 0,
      objectId: Number(event.objectId),
    };
    const source = {
      changeSource: event.source,
      ...(event.sourceId === undefined ? {} : { sourceId: event.sourceId }),
    };
    if (event.kind === 'creation') {
      if (!this.settings.creation) return;
      this.#enqueue({
        eventId: this.#nextEventId++,
        subscriptionId: this.subscriptionId('company.creation'),
        ...common,
        subscriptionType: 'company.creation',
        changeFlag: 'CREATED',
        ...source,
      });
      return;
    }
    if (!this.settings.propertyChanges.includes(event.propertyName)) return;
    if (event.atCreation && !this.settings.propertyChangeOnCreate) return;
    this.#enqueue({
      eventId: this.#nextEventId++,
      subscriptionId: this.subscriptionId('company.propertyChange', event.propertyName),
      ...common,
      subscriptionType: 'company.propertyChange',
      propertyName: event.propertyName,
      propertyValue: event.propertyValue,
      ...source,
    });
  }

  #enqueue(event: WebhookEvent): void {
    this.#pending.push(event);
    if (this.#batchTimer) return;
    this.#batchTimer = setTimeout(() => {
      if (this.#batchTimer) this.#timers.delete(this.#batchTimer);
      this.#batchTimer = undefined;
      this.flush();
    }, this.settings.batchWindowMs);
    this.#timers.add(this.#batchTimer);
  }

  #pump(): void {
    while (!this.#closed && this.#inFlight < this.settings.maxConcurrent && this.#queue.length) {
      const next = this.#queue.shift();
      if (next) void this.#attempt(next.delivery, next.attemptNumber);
    }
    this.#notify();
  }

  async #attempt(delivery: WebhookDelivery, attemptNumber: number): Promise<void> {
    this.#inFlight++;
    delivery.state = 'in-flight';
    const body = JSON.stringify(delivery.events.map((e) => ({ ...e, attemptNumber })));
    const timestamp = String(Date.now());
    const attempt: DeliveryAttempt = { attemptNumber, startedAt: Date.now(), timestamp, durationMs: 0 };
    delivery.attempts.push(attempt);
    const controller = new AbortController();
    this.#controllers.add(controller);
    const secret = this.app.clientSecret;
    try {
      const res = await fetch(delivery.url, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'X-HubSpot-Signature-v3': signatureV3(secret, 'POST', delivery.url, body, timestamp),
          'X-HubSpot-Request-Timestamp': timestamp,
          'X-HubSpot-Signature': createHash('sha256')
            .update(secret + body, 'utf8')
            .digest('hex'),
          'X-HubSpot-Signature-Version': 'v1',
        },
        body,
        signal: AbortSignal.any([controller.signal, AbortSignal.timeout(this.settings.timeoutMs)]),
      });
      await res.arrayBuffer().catch(() => undefined);
      attempt.status = res.status;
      delivery.lastStatus = res.status;
    } catch (err) {
      const e = err as Error & { cause?: { code?: string } };
      attempt.error =
        e.name === 'TimeoutError'
          ? `no answer within ${this.settings.timeoutMs} ms`
          : (e.cause?.code ?? e.message);
      delivery.lastError = attempt.error;
    } finally {
      this.#controllers.delete(controller);
      attempt.durationMs = Date.now() - attempt.startedAt;
      this.#inFlight--;
    }
    const ok = attempt.status !== undefined && attempt.status >= 200 && attempt.status < 300;
    if (ok) delivery.state = 'delivered';
    else if (this.#closed || attemptNumber >= this.settings.maxRetries) delivery.state = 'failed';
    else this.#scheduleRetry(delivery, attemptNumber + 1);
    this.#pump();
  }

  #scheduleRetry(delivery: WebhookDelivery, attemptNumber: number): void {
    delivery.state = 'retry-scheduled';
    const timer = setTimeout(
      () => {
        this.#timers.delete(timer);
        this.#queue.push({ delivery, attemptNumber });
        this.#pump();
      },
      this.#retryDelay(attemptNumber - 1),
    );
    this.#timers.add(timer);
  }

  /** A random delay between the previous and the current step (HubSpot's randomized backoff). */
  #retryDelay(retry: number): number {
    const delays = this.settings.retryDelaysMs;
    if (typeof delays === 'function') return Math.max(0, delays(retry));
    const last = delays[delays.length - 1] ?? 0;
    const max = delays[retry] ?? last;
    const min = retry > 0 ? Math.min(max, delays[retry - 1] ?? 0) : max / 2;
    return Math.round(min + this.#random() * (max - min));
  }

  #isIdle(): boolean {
    return !this.#pending.length && !this.#queue.length && this.#inFlight === 0 && this.#timers.size === 0;
  }

  #notify(): void {
    if (!this.#isIdle()) return;
    for (const waiter of [...this.#waiters]) {
      this.#waiters.delete(waiter);
      waiter();
    }
  }
}
