// Standard Webhooks (https://github.com/standard-webhooks/standard-webhooks), the scheme the Buyer
// Intelligence provider signs its deliveries with: the signed content is `${id}.${timestamp}.${body}`,
// `webhook-signature` lists space-separated `v1,<base64 HMAC-SHA256>` (secret `whsec_<base64>`) and
// `v1a,<base64 Ed25519>` (public key `whpk_<base64 raw 32 bytes>`) entries. A delivery is authentic when
// any listed signature verifies with any configured key, so keys rotate without downtime. Signing lives
// here too, so the provider's emulator and our verifier cannot drift apart.
import {
  createHmac,
  createPrivateKey,
  createPublicKey,
  sign as edSign,
  verify as edVerify,
  type KeyObject,
} from 'node:crypto';
import { oneOfBytes } from '../shared/compare.ts';

/** The provider rejects nothing older, and says so: 5 minutes, either side of our clock. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;
/** A header with more entries than this is not a key rotation, it is an attempt to make us work. */
const MAX_SIGNATURES = 16;

export interface StandardWebhookKeys {
  /** HMAC secrets, `whsec_<base64>` (the prefix is optional, the rest must be base64). */
  secrets?: readonly string[] | undefined;
  /** Ed25519 public keys: `whpk_<base64 raw key>`, a PEM SPKI block, or bare base64 of the 32 raw bytes. */
  publicKeys?: readonly string[] | undefined;
}

export interface VerifierOptions extends StandardWebhookKeys {
  toleranceSeconds?: number;
  /** Test seam: the current time in ms. */
  now?: () => number;
}

export interface WebhookHeaders {
  id: string | undefined;
  timestamp: string | undefined;
  signature: string | undefined;
}

export type VerifyFailureReason =
  | 'missing_headers'
  | 'invalid_id'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_signature'
  | 'signature_mismatch';

export type VerifyResult =
  | { ok: true; id: string; timestamp: number; scheme: 'v1' | 'v1a' }
  | { ok: false; reason: VerifyFailureReason; message: string };

export type StandardWebhookVerifier = (headers: WebhookHeaders, body: Buffer | string) => VerifyResult;

const HMAC_PREFIX = 'whsec_';
const PUBLIC_KEY_PREFIX = 'whpk_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Decodes strict base64 (Buffer.from silently skips junk, which would turn a typo into a weak key). */
function decodeBase64(value: string): Buffer | null {
  const v = value.trim();
  if (!v || v.length % 4 !== 0 || !BASE64.test(v)) return null;
  return Buffer.from(v, 'base64');
}

/** The HMAC key bytes of a `whsec_` secret. Throws without echoing the secret. */
export function parseHmacSecret(secret: string): Buffer {
  const raw = secret.startsWith(HMAC_PREFIX) ? secret.slice(HMAC_PREFIX.length) : secret;
  const key = decodeBase64(raw);
  if (!key || key.length < 16) throw new TypeError('a webhook secret must be whsec_ followed by base64');
  return key;
}

/** An Ed25519 public key from `whpk_<base64>`, PEM, or bare base64 of the raw 32 bytes. */
export function parsePublicKey(value: string): KeyObject {
  const v = value.trim();
  let key: KeyObject;
  if (v.startsWith('-----BEGIN')) {
    key = createPublicKey(v);
  } else {
    const raw = decodeBase64(v.startsWith(PUBLIC_KEY_PREFIX) ? v.slice(PUBLIC_KEY_PREFIX.length) : v);
    if (raw?.length !== 32)
      throw new TypeError('a webhook public key must be whpk_ followed by base64 of 32 bytes, or PEM');
    key = createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      format: 'jwk',
    });
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new TypeError('a webhook public key must be Ed25519');
  return key;
}

/** `whpk_<base64 raw 32 bytes>` of an Ed25519 public (or private) key. */
export function formatPublicKey(key: KeyObject): string {
  const jwk = (key.type === 'private' ? createPublicKey(key) : key).export({ format: 'jwk' });
  if (typeof jwk.x !== 'string') throw new TypeError('not an Ed25519 key');
  return `${PUBLIC_KEY_PREFIX}${Buffer.from(jwk.x, 'base64url').toString('base64')}`;
}

function signedContent(id: string, timestamp: string, body: Buffer | string): Buffer {
  return Buffer.concat([
    Buffer.from(`${id}.${timestamp}.`),
    Buffer.isBuffer(body) ? body : Buffer.from(body),
  ]);
}

export function createStandardWebhookVerifier(options: VerifierOptions): StandardWebhookVerifier {
  // Keys are parsed once, at start-up: a bad key is a configuration error, not a 401 per delivery.
  const hmacKeys = (options.secrets ?? []).map(parseHmacSecret);
  const publicKeys = (options.publicKeys ?? []).map(parsePublicKey);
  if (!hmacKeys.length && !publicKeys.length)
    throw new TypeError('a Standard Webhooks verifier needs at least one secret or public key');
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const now = options.now ?? Date.now;

  return (headers, body) => {
    const { id, timestamp, signature } = headers;
    if (!id || !timestamp || !signature)
      return fail('missing_headers', 'webhook-id, webhook-timestamp and webhook-signature are required');
    // The id becomes a Redis key and a job id: bounded and printable, whatever a caller sends.
    if (!/^[\x21-\x7e]{1,256}$/.test(id))
      return fail('invalid_id', 'webhook-id must be 1-256 printable characters');
    if (!/^\d{1,12}$/.test(timestamp))
      return fail('invalid_timestamp', 'webhook-timestamp must be unix seconds');
    const ts = Number(timestamp);
    const nowSeconds = Math.floor(now() / 1000);
    if (ts < nowSeconds - tolerance) return fail('timestamp_too_old', 'webhook-timestamp is too old');
    if (ts > nowSeconds + tolerance) return fail('timestamp_too_new', 'webhook-timestamp is in the future');

    const entries = signature
      .split(' ')
      .filter(Boolean)
      .slice(0, MAX_SIGNATURES)
      .map((entry) => {
        const comma = entry.indexOf(',');
        return comma < 0
          ? null
          : { version: entry.slice(0, comma), value: decodeBase64(entry.slice(comma + 1)) };
      });
    const v1 = entries.flatMap((e) => (e?.version === 'v1' && e.value ? [e.value] : []));
    const v1a = entries.flatMap((e) => (e?.version === 'v1a' && e.value ? [e.value] : []));
    if (!(v1.length && hmacKeys.length) && !(v1a.length && publicKeys.length))
      return fail('no_signature', 'webhook-signature holds no signature of a scheme we have a key for');

    const content = signedContent(id, timestamp, body);
    for (const key of hmacKeys) {
      const expected = createHmac('sha256', key).update(content).digest();
      // Every listed signature compared in constant time (the one compare, src/shared/compare.ts).
      if (oneOfBytes(expected, v1)) return { ok: true, id, timestamp: ts, scheme: 'v1' };
    }
    for (const key of publicKeys) {
      if (v1a.some((sig) => sig.length === 64 && edVerify(null, content, key, sig)))
        return { ok: true, id, timestamp: ts, scheme: 'v1a' };
    }
    return fail('signature_mismatch', 'no signature in webhook-signature verifies with our keys');
  };
}

function fail(reason: VerifyFailureReason, message: string): VerifyResult {
  return { ok: false, reason, message };
}

// ---- Signing (the provider's side: the emulator and tests) -------------------------------------------

export interface SigningKeys {
  /** `whsec_<base64>`: adds a `v1` entry. */
  secret?: string | undefined;
  /** An Ed25519 private key (KeyObject or PEM): adds a `v1a` entry. */
  privateKey?: KeyObject | string | undefined;
}

/** The three Standard Webhooks headers for one delivery. */
export function signStandardWebhook(
  keys: SigningKeys,
  id: string,
  timestampSeconds: number,
  body: Buffer | string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = String(timestampSeconds);
  const content = signedContent(id, timestamp, body);
  const entries: string[] = [];
  if (keys.secret)
    entries.push(`v1,${createHmac('sha256', parseHmacSecret(keys.secret)).update(content).digest('base64')}`);
  if (keys.privateKey) {
    const key = typeof keys.privateKey === 'string' ? createPrivateKey(keys.privateKey) : keys.privateKey;
    entries.push(`v1a,${edSign(null, content, key).toString('base64')}`);
  }
  if (!entries.length) throw new TypeError('signing needs a secret or a private key');
  return { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': entries.join(' ') };
}
