// Who is calling our API: an operator or script with an API key, or code running inside a CRM (the
// HubSpot card, the Salesforce quick action) that signs its requests the way that CRM's descriptor
// verifies. Each CRM-signed caller may act only on its own CRM (and on its own tenant when the
// signature names one); see `mayAct`.
import { createHash } from 'node:crypto';
import type { SignedRequests } from '../../connectors/descriptor.ts';
import type { CrmKind, InboundRequest } from '../../connectors/types.ts';
import { oneOf } from '../shared/compare.ts';

export type Caller =
  /** `key`: a fingerprint of the key used (never the key), to tell who decided what. */
  | { via: 'api-key'; key?: string | undefined }
  /** `user`: the CRM user the signature vouches for, when the CRM signs one. */
  | { via: 'crm'; crm: CrmKind; tenant?: string | undefined; user?: string | undefined };

/** Names an API key in records without revealing it. */
export const keyFingerprint = (key: string): string =>
  `key:${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;

export interface ApiAuthOptions {
  /** Per-install API keys (any of them; several allow rotation). */
  apiKeys: readonly string[];
  /** Each configured CRM's signed-request check. */
  signed: readonly { crm: CrmKind; check: SignedRequests }[];
}

export type AuthOutcome = { ok: true; caller: Caller } | { ok: false; message: string };

export const describeCaller = (caller: Caller): string => (caller.via === 'crm' ? caller.crm : caller.via);

export async function authenticate(request: InboundRequest, options: ApiAuthOptions): Promise<AuthOutcome> {
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
  if (bearer) {
    return oneOf(bearer, options.apiKeys)
      ? { ok: true, caller: { via: 'api-key', key: keyFingerprint(bearer) } }
      : { ok: false, message: 'the API key is not valid' };
  }
  for (const { crm, check } of options.signed) {
    if (!request.headers[check.header]) continue;
    const outcome = await check.verify(request);
    if (!outcome.ok) return { ok: false, message: outcome.message };
    return { ok: true, caller: { via: 'crm', crm, tenant: outcome.tenant, user: outcome.user } };
  }
  const ways = ['Authorization: Bearer <API key>', ...options.signed.map((s) => `the ${s.crm} signature`)];
  return { ok: false, message: `authenticate with ${ways.join(' or ')}` };
}

/** A CRM-signed caller acts only on its own CRM, and on its own tenant when its signature names one. */
export function mayAct(caller: Caller, crm: CrmKind, tenant: string): boolean {
  if (caller.via === 'api-key') return true;
  return caller.crm === crm && (caller.tenant === undefined || caller.tenant === tenant);
}
