// HubSpot webhook deliveries → account events. A delivery is a JSON array of up to 100 events signed
// with the v3 signature over the exact URL HubSpot called; only `company.creation` and
// `company.propertyChange` concern us, and changes our own app wrote are left out so that our writes
// never trigger another enrichment.
import { z } from 'zod';
import { formatPath } from '../../src/shared/format-path.ts';
import { jsonShapeProblem } from '../../src/shared/text.ts';
import type { AccountEvent, InboundEventHandler, InboundReply } from '../types.ts';
import { hubspotId } from './ids.ts';
import {
  hubspotHeadersProblem,
  streamedHubSpotSignature,
  verifyHubSpotRequest,
} from './webhook-signature.ts';

export const HUBSPOT_MAX_EVENTS = 100;
/**
 * A delivery's size and shape: at most 100 events, each a flat object of a dozen fields (~300 bytes),
 * so 8 levels and 5,000 values (~40 a event) leave room. The size stays at 1 MiB: a property-change
 * event carries the new value, and a text property holds up to 65,536 characters, so a real batch can
 * be far larger than its events' count suggests — and one refused is lost once HubSpot's retries end.
 * What a large hostile body costs is bounded otherwise: the signature is hashed as it arrives, and the
 * shape is checked in one pass over the text before JSON.parse, so a signed 1 MB body of 350,000 empty
 * objects or 500,000 nested arrays costs a scan, not a parse and a schema check of each (0.6-0.8 s of
 * the event loop each).
 */
export const HUBSPOT_MAX_BODY_BYTES = 1024 * 1024;
const MAX_DEPTH = 8;
const MAX_VALUES = 5_000;

/** A HubSpot id: a positive whole number, as a JSON number or a string of digits; kept canonical. */
const hubspotIdSchema = z.union([z.number(), z.string()]).transform((raw, ctx) => {
  const id = hubspotId(raw);
  if (id === undefined)
    ctx.addIssue({ code: 'custom', message: 'is not a HubSpot id (a positive whole number)' });
  return id ?? '';
});

const eventSchema = z.looseObject({
  eventId: z.union([z.number(), z.string()]),
  subscriptionType: z.string(),
  portalId: hubspotIdSchema,
  objectId: hubspotIdSchema,
  occurredAt: z.number(),
  attemptNumber: z.number().int().optional(),
  changeSource: z.string().optional(),
  sourceId: z.string().optional(),
  propertyName: z.string().optional(),
});
const batchSchema = z
  .array(eventSchema)
  .min(1, 'empty batch')
  .max(HUBSPOT_MAX_EVENTS, `more than ${HUBSPOT_MAX_EVENTS} events`);

type HubSpotEvent = z.output<typeof eventSchema>;

export interface HubSpotEventOptions {
  clientSecret: string;
  /** Portals we hold credentials for; events of other portals are acknowledged and ignored. */
  isKnownPortal: (portalId: string) => boolean;
  /** Our app id: property changes our own writes cause must not trigger another enrichment. */
  appId?: string | undefined;
  /** Prefix of the CRM properties we own (changes to them are ours). Default `buyer_intel_`. */
  ownPropertyPrefix?: string;
  now?: () => number;
}

const invalidSignature = (message: string) => ({
  ok: false as const,
  status: 401 as const,
  error: 'invalid_signature',
  message,
});

const json = (status: number, body: unknown): InboundReply => ({
  status,
  contentType: 'application/json; charset=utf-8',
  body: JSON.stringify(body),
});

export function hubspotEventHandler(options: HubSpotEventOptions): InboundEventHandler {
  const ownPrefix = options.ownPropertyPrefix ?? 'buyer_intel_';
  return {
    kind: 'hubspot',
    contentTypes: ['application/json'],
    maxBodyBytes: HUBSPOT_MAX_BODY_BYTES,
    admits(request) {
      const problem = hubspotHeadersProblem(request.headers, options.now?.());
      return problem ? invalidSignature(problem) : undefined;
    },
    bodyCheck(request) {
      const signature = streamedHubSpotSignature(
        options.clientSecret,
        request.method,
        request.url,
        request.headers['x-hubspot-request-timestamp'] ?? '',
      );
      return {
        update: signature.update,
        end: () =>
          signature.matches(request.headers['x-hubspot-signature-v3'] ?? '')
            ? undefined
            : invalidSignature('signature does not match'),
      };
    },
    parse(request) {
      const check = verifyHubSpotRequest(request, options.clientSecret, options.now?.());
      if (!check.ok) return invalidSignature(check.reason);
      const shape = jsonShapeProblem(request.body, { maxDepth: MAX_DEPTH, maxValues: MAX_VALUES });
      if (shape) return { ok: false, status: 400, error: 'invalid_batch', message: shape };
      let body: unknown;
      try {
        body = JSON.parse(request.body);
      } catch {
        return { ok: false, status: 400, error: 'malformed_json', message: 'the body is not valid JSON' };
      }
      const parsed = batchSchema.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = formatPath(issue?.path ?? []);
        return {
          ok: false,
          status: 400,
          error: 'invalid_batch',
          message: `${where}: ${issue?.message ?? 'invalid'}`,
        };
      }
      const events = parsed.data.flatMap((e) => {
        const event = toAccountEvent(e, options, ownPrefix);
        return event ? [event] : [];
      });
      // A retry re-sends the batch with each event's attemptNumber raised: its event ids name it.
      const deliveryId = `events ${parsed.data.map((e) => `${e.portalId}:${e.eventId}`).join(',')}`;
      return { ok: true, received: parsed.data.length, events, deliveryId };
    },
    accepted: (summary) => json(200, summary),
    rejected: ({ status, error, message }) => json(status, { error, message }),
    unavailable: () =>
      json(503, { error: 'queue_unavailable', message: 'could not queue the events; retry later' }),
  };
}

function toAccountEvent(
  event: HubSpotEvent,
  options: HubSpotEventOptions,
  ownPrefix: string,
): AccountEvent | null {
  if (!options.isKnownPortal(event.portalId)) return null;
  const base = { crm: 'hubspot' as const, tenant: event.portalId, accountId: event.objectId };
  if (event.subscriptionType === 'company.creation') {
    return {
      ...base,
      change: 'created',
      dedupeParts: [event.objectId, 'created'],
      cause: `company.creation event ${event.eventId}`,
    };
  }
  if (event.subscriptionType === 'company.propertyChange') {
    const ours =
      (event.propertyName?.startsWith(ownPrefix) ?? false) ||
      (options.appId !== undefined && event.sourceId === options.appId);
    if (ours) return null;
    // A change re-enriches; several changes of one company moments apart are one job.
    return {
      ...base,
      change: 'updated',
      dedupeParts: [event.objectId, 'changed', Math.floor(event.occurredAt / 60_000)],
      cause: `company.propertyChange ${event.propertyName ?? ''} event ${event.eventId}`,
    };
  }
  return null;
}
