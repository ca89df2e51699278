// The signature the Salesforce quick action's Apex puts on its calls to us (connectors/salesforce/
// force-app): X-BuyerIntel-Timestamp (unix seconds), X-BuyerIntel-Nonce (single use) and
// X-BuyerIntel-Signature, one of
//   v3=<hex HMAC-SHA256(secret, timestamp + "." + nonce + "." + org + "." + user + "." + body)> with
//      X-BuyerIntel-Org (the org's 18-character id) and X-BuyerIntel-User: the caller is bound to its org
//   v2=<hex HMAC-SHA256(secret, timestamp + "." + nonce + "." + user + "." + body)> with X-BuyerIntel-User
//   v1=<hex HMAC-SHA256(secret, timestamp + "." + nonce + "." + body)>  (installs not yet upgraded: no user)
// v1 and v2 name no org: the API takes them only where one Salesforce org is served (src/api/router.ts).
// The timestamp bounds a replay to 5 minutes and the nonce, remembered for longer than that, closes it.
import { createHmac } from 'node:crypto';
import { sameText } from '../../src/shared/compare.ts';
import { isSalesforceId } from './ids.ts';

export const HMAC_TOLERANCE_SECONDS = 300;

/**
 * A Salesforce username as X-BuyerIntel-User carries it: visible ASCII, at most 120 characters. No
 * space (a header value's edges are trimmed in transit) and no `{`: v2 bodies are empty or a JSON
 * object, so no user/body split other than the signed one gives the same canonical string.
 */
export const SALESFORCE_USER = /^[\x21-\x7a\x7c-\x7e]{1,120}$/;

const hmacHex = (secret: string, canonical: string) =>
  createHmac('sha256', secret).update(canonical).digest('hex');

export function salesforceRequestSignature(
  secret: string,
  timestamp: string,
  nonce: string,
  body: string,
): string {
  return `v1=${hmacHex(secret, `${timestamp}.${nonce}.${body}`)}`;
}

/** The v2 signature, which vouches for the Salesforce user too. */
export function salesforceRequestSignatureV2(
  secret: string,
  timestamp: string,
  nonce: string,
  user: string,
  body: string,
): string {
  return `v2=${hmacHex(secret, `${timestamp}.${nonce}.${user}.${body}`)}`;
}

/** The v3 signature, which vouches for the org and the user. */
export function salesforceRequestSignatureV3(
  secret: string,
  timestamp: string,
  nonce: string,
  org: string,
  user: string,
  body: string,
): string {
  return `v3=${hmacHex(secret, `${timestamp}.${nonce}.${org}.${user}.${body}`)}`;
}

export type HmacCheck =
  | { ok: true; nonce: string; user?: string | undefined; org?: string | undefined }
  | { ok: false; reason: string };

/** Checks the headers and signature; the caller still has to make sure the nonce was never seen. */
export function verifySalesforceRequest(input: {
  secrets: readonly string[];
  headers: Readonly<Record<string, string | undefined>>;
  body: string;
  nowSeconds?: number;
}): HmacCheck {
  const timestamp = input.headers['x-buyerintel-timestamp'];
  const nonce = input.headers['x-buyerintel-nonce'];
  const signature = input.headers['x-buyerintel-signature'];
  const user = input.headers['x-buyerintel-user'];
  const org = input.headers['x-buyerintel-org'];
  if (!timestamp || !nonce || !signature)
    return {
      ok: false,
      reason: 'missing X-BuyerIntel-Timestamp, X-BuyerIntel-Nonce or X-BuyerIntel-Signature',
    };
  if (!/^\d{9,11}$/.test(timestamp))
    return { ok: false, reason: 'X-BuyerIntel-Timestamp is not unix seconds' };
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(nonce))
    return { ok: false, reason: 'X-BuyerIntel-Nonce must be 16-128 url-safe characters' };
  const age = (input.nowSeconds ?? Math.floor(Date.now() / 1000)) - Number(timestamp);
  if (Math.abs(age) > HMAC_TOLERANCE_SECONDS)
    return { ok: false, reason: 'timestamp outside the 5-minute tolerance' };

  let sign: (secret: string) => string;
  if (org !== undefined && !signature.startsWith('v3='))
    return { ok: false, reason: 'X-BuyerIntel-Org needs a v3 signature' };
  if (signature.startsWith('v3=')) {
    if (user === undefined || org === undefined)
      return { ok: false, reason: 'a v3 signature needs X-BuyerIntel-Org and X-BuyerIntel-User' };
    // The 18-character form only: its fixed length keeps org and user apart in the signed string.
    if (org.length !== 18 || !isSalesforceId(org, '00D'))
      return { ok: false, reason: 'X-BuyerIntel-Org must be the 18-character org id (00D…)' };
    if (!SALESFORCE_USER.test(user))
      return {
        ok: false,
        reason: 'X-BuyerIntel-User must be 1-120 visible ASCII characters, without spaces or "{"',
      };
    if (input.body !== '' && !input.body.startsWith('{'))
      return { ok: false, reason: 'a v3-signed body must be empty or a JSON object' };
    sign = (secret) => salesforceRequestSignatureV3(secret, timestamp, nonce, org, user, input.body);
  } else if (signature.startsWith('v2=')) {
    if (user === undefined) return { ok: false, reason: 'a v2 signature needs X-BuyerIntel-User' };
    if (!SALESFORCE_USER.test(user))
      return {
        ok: false,
        reason: 'X-BuyerIntel-User must be 1-120 visible ASCII characters, without spaces or "{"',
      };
    if (input.body !== '' && !input.body.startsWith('{'))
      return { ok: false, reason: 'a v2-signed body must be empty or a JSON object' };
    sign = (secret) => salesforceRequestSignatureV2(secret, timestamp, nonce, user, input.body);
  } else if (signature.startsWith('v1=')) {
    // A v1 signature does not cover a user: one named beside it would be unvouched for.
    if (user !== undefined) return { ok: false, reason: 'X-BuyerIntel-User needs a v2 signature' };
    sign = (secret) => salesforceRequestSignature(secret, timestamp, nonce, input.body);
  } else {
    return { ok: false, reason: 'X-BuyerIntel-Signature must start with v3=, v2= or v1=' };
  }

  for (const secret of input.secrets) {
    if (sameText(signature, sign(secret)))
      return {
        ok: true,
        nonce,
        ...(user === undefined ? {} : { user }),
        ...(org === undefined ? {} : { org }),
      };
  }
  return { ok: false, reason: 'signature does not match' };
}
