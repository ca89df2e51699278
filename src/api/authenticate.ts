// Who is calling our API: an operator or script with an API key, a HubSpot UI extension (hubspot.fetch
// signs with the app's client secret, v3), or the Salesforce quick action (HMAC with a shared secret and
// a single-use nonce). Each caller may act only on its own CRM and tenant; see `mayAct`.
import { timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import { verifyHubSpotRequest } from '../../connectors/hubspot/webhook-signature.ts';
import type { CrmKind, InboundRequest } from '../../connectors/types.ts';
import { HMAC_TOLERANCE_SECONDS, verifySalesforceRequest } from './salesforce-hmac.ts';

export type Caller = { via: 'api-key' } | { via: 'hubspot'; portalId: string } | { via: 'salesforce' };

export interface ApiAuthOptions {
  /** Per-install API keys (any of them; several allow rotation). */
  apiKeys: readonly string[];
  /** The HubSpot app's client secret, when HubSpot is configured. */
  hubspotClientSecret?: string | undefined;
  /** Shared secrets of the Salesforce quick action (several allow rotation). */
  salesforceSecrets?: readonly string[];
  redis: Redis;
  prefix: string;
  now?: () => number;
}

export type AuthOutcome = { ok: true; caller: Caller } | { ok: false; message: string };

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

export async function authenticate(request: InboundRequest, options: ApiAuthOptions): Promise<AuthOutcome> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer) {
    return options.apiKeys.some((key) => sameSecret(key, bearer))
      ? { ok: true, caller: { via: 'api-key' } }
      : { ok: false, message: 'the API key is not valid' };
  }
  if (request.headers['x-hubspot-signature-v3']) {
    if (!options.hubspotClientSecret) return { ok: false, message: 'HubSpot is not configured' };
    const check = verifyHubSpotRequest(request, options.hubspotClientSecret, options.now?.());
    if (!check.ok) return { ok: false, message: `HubSpot signature: ${check.reason}` };
    // hubspot.fetch appends the portal the card runs in; the signature covers it (it is in the URL).
    const portalId = new URL(request.url).searchParams.get('portalId');
    if (!portalId) return { ok: false, message: 'a HubSpot-signed request must carry portalId' };
    return { ok: true, caller: { via: 'hubspot', portalId } };
  }
  if (request.headers['x-buyerintel-signature']) {
    if (!options.salesforceSecrets?.length)
      return { ok: false, message: 'Salesforce signing is not configured' };
    const check = verifySalesforceRequest({
      secrets: options.salesforceSecrets,
      headers: request.headers,
      body: request.body,
      ...(options.now ? { nowSeconds: Math.floor(options.now() / 1000) } : {}),
    });
    if (!check.ok) return { ok: false, message: `Salesforce signature: ${check.reason}` };
    const fresh = await options.redis.set(
      `${options.prefix}:api-nonce:${check.nonce}`,
      '1',
      'EX',
      HMAC_TOLERANCE_SECONDS * 2,
      'NX',
    );
    if (fresh !== 'OK') return { ok: false, message: 'Salesforce signature: the nonce was already used' };
    return { ok: true, caller: { via: 'salesforce' } };
  }
  return {
    ok: false,
    message:
      'authenticate with Authorization: Bearer <API key>, a HubSpot v3 signature or the Salesforce HMAC headers',
  };
}

/** A CRM-signed caller acts only on its own CRM (and HubSpot on its own portal). */
export function mayAct(caller: Caller, crm: CrmKind, tenant: string): boolean {
  if (caller.via === 'api-key') return true;
  if (caller.via === 'hubspot') return crm === 'hubspot' && tenant === caller.portalId;
  return crm === 'salesforce';
}
