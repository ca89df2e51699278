// The signature the Salesforce quick action's Apex puts on its calls to us (connectors/salesforce/
// force-app): X-BuyerIntel-Timestamp (unix seconds), X-BuyerIntel-Nonce (single use) and
// X-BuyerIntel-Signature `v1=<hex HMAC-SHA256(secret, timestamp + "." + nonce + "." + body)>`. The
// timestamp bounds a replay to 5 minutes and the nonce, remembered for longer than that, closes it.
import { createHmac, timingSafeEqual } from 'node:crypto';

export const HMAC_TOLERANCE_SECONDS = 300;

export function salesforceRequestSignature(
  secret: string,
  timestamp: string,
  nonce: string,
  body: string,
): string {
  return `v1=${createHmac('sha256', secret).update(`${timestamp}.${nonce}.${body}`).digest('hex')}`;
}

export type HmacCheck = { ok: true; nonce: string } | { ok: false; reason: string };

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
  const given = Buffer.from(signature);
  for (const secret of input.secrets) {
    const expected = Buffer.from(salesforceRequestSignature(secret, timestamp, nonce, input.body));
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true, nonce };
  }
  return { ok: false, reason: 'signature does not match' };
}
