// HubSpot request signatures, v3: base64(HMAC-SHA256(client secret, method + uri + body + timestamp)),
// with X-HubSpot-Request-Timestamp in ms; timestamps older than 5 minutes are refused. The SDK's own
// check compares with === and does no URI decoding, so we do both here.
import { createHmac } from 'node:crypto';
import { sameText } from '../../src/shared/compare.ts';

export const SIGNATURE_TOLERANCE_MS = 5 * 60_000;

// HubSpot decodes these escapes in the URI before signing (its request-validation docs). The HubSpot
// emulator keeps its own copy on purpose, so that the two sides are checked against each other.
const DECODED: Record<string, string> = {
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

export function hubspotSigningUri(uri: string): string {
  return uri.replace(/%(3A|2F|3F|40|21|24|27|28|29|2A|2C|3B)/gi, (m) => DECODED[m.toUpperCase()] ?? m);
}

export function hubspotSignatureV3(
  secret: string,
  method: string,
  uri: string,
  rawBody: string,
  timestamp: string,
): string {
  return createHmac('sha256', secret)
    .update(`${method.toUpperCase()}${hubspotSigningUri(uri)}${rawBody}${timestamp}`)
    .digest('base64');
}

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/** base64 of an HMAC-SHA256, as HubSpot writes it: 43 letters and one '=' of padding. */
const SIGNATURE_V3 = /^[A-Za-z0-9+/]{43}=$/;

/**
 * What the headers alone can refuse, before the body is read: a missing or malformed signature, a
 * timestamp outside the 5-minute window. The signature covers the timestamp, so a forger gains nothing
 * by one that passes here.
 */
export function hubspotHeadersProblem(
  headers: Readonly<Record<string, string | undefined>>,
  now = Date.now(),
): string | undefined {
  const signature = headers['x-hubspot-signature-v3'];
  const timestamp = headers['x-hubspot-request-timestamp'];
  if (!signature || !timestamp) return 'missing X-HubSpot-Signature-v3 or X-HubSpot-Request-Timestamp';
  if (!SIGNATURE_V3.test(signature)) return 'signature does not match';
  const ts = Number(timestamp);
  if (!/^\d{1,16}$/.test(timestamp) || !Number.isFinite(ts))
    return 'X-HubSpot-Request-Timestamp is not a number';
  const age = now - ts;
  if (age > SIGNATURE_TOLERANCE_MS) return 'timestamp older than 5 minutes';
  if (age < -SIGNATURE_TOLERANCE_MS) return 'timestamp in the future';
  return undefined;
}

/**
 * The v3 signature computed over the body as it arrives, one chunk at a time: `matches()` once the
 * body is in. The bytes are hashed as sent (HubSpot signs the UTF-8 of its JSON).
 */
export function streamedHubSpotSignature(
  secret: string,
  method: string,
  uri: string,
  timestamp: string,
): { update(chunk: Buffer): void; matches(signature: string): boolean } {
  const hmac = createHmac('sha256', secret).update(`${method.toUpperCase()}${hubspotSigningUri(uri)}`);
  return {
    update: (chunk) => {
      hmac.update(chunk);
    },
    matches: (signature) => sameText(signature, hmac.update(timestamp).digest('base64')),
  };
}

export function verifyHubSpotSignatureV3(input: {
  secret: string;
  method: string;
  uri: string;
  rawBody: string;
  signature: string | undefined;
  timestamp: string | undefined;
  now?: number;
}): SignatureCheck {
  const { signature, timestamp } = input;
  if (!signature || !timestamp)
    return { ok: false, reason: 'missing X-HubSpot-Signature-v3 or X-HubSpot-Request-Timestamp' };
  const ts = Number(timestamp);
  if (!Number.isFinite(ts)) return { ok: false, reason: 'X-HubSpot-Request-Timestamp is not a number' };
  const age = (input.now ?? Date.now()) - ts;
  if (age > SIGNATURE_TOLERANCE_MS) return { ok: false, reason: 'timestamp older than 5 minutes' };
  if (age < -SIGNATURE_TOLERANCE_MS) return { ok: false, reason: 'timestamp in the future' };
  // As the exact base64 text HubSpot sends (padding included): decoding the header first let the same
  // signature pass without its '=', in URL-safe letters or with junk, each a new replay-memory key.
  const expected = hubspotSignatureV3(input.secret, input.method, input.uri, input.rawBody, timestamp);
  if (!sameText(signature, expected)) return { ok: false, reason: 'signature does not match' };
  return { ok: true };
}

/** The v3 check of a request as it arrived (headers lower-case, the full URL called, the raw body). */
export function verifyHubSpotRequest(
  request: {
    method: string;
    url: string;
    headers: Readonly<Record<string, string | undefined>>;
    body: string;
  },
  secret: string,
  now?: number,
): SignatureCheck {
  return verifyHubSpotSignatureV3({
    secret,
    method: request.method,
    uri: request.url,
    rawBody: request.body,
    signature: request.headers['x-hubspot-signature-v3'],
    timestamp: request.headers['x-hubspot-request-timestamp'],
    ...(now === undefined ? {} : { now }),
  });
}
