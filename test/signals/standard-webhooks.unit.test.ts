// Standard Webhooks verification against vectors computed here with node:crypto, independently of the
// signing helper under test (which is checked against the same vectors).
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  createStandardWebhookVerifier,
  formatPublicKey,
  parseHmacSecret,
  parsePublicKey,
  signStandardWebhook,
} from '../../src/signals/standard-webhooks.ts';

const NOW = 1_780_000_000_000;
const TS = String(NOW / 1000);
const ID = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W';
const BODY = '{"type":"bridge.row.created","data":{"rowId":"r1","bridgeId":"b1"}}';
const RAW_SECRET = randomBytes(32);
const SECRET = `whsec_${RAW_SECRET.toString('base64')}`;
const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const rawPublic = publicKey.export({ format: 'jwk' }).x ?? '';
const WHPK = `whpk_${Buffer.from(rawPublic, 'base64url').toString('base64')}`;

const hmac = (body = BODY, id = ID, ts = TS, key = RAW_SECRET) =>
  `v1,${createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest('base64')}`;
const ed = (body = BODY, id = ID, ts = TS, key = privateKey) =>
  `v1a,${sign(null, Buffer.from(`${id}.${ts}.${body}`), key).toString('base64')}`;

const verifier = (options: Parameters<typeof createStandardWebhookVerifier>[0]) =>
  createStandardWebhookVerifier({ now: () => NOW, ...options });
const headers = (signature: string, ts = TS, id = ID) => ({ id, timestamp: ts, signature });

describe('v1 (HMAC-SHA256)', () => {
  const verify = verifier({ secrets: [SECRET] });
  it('accepts a valid signature over the exact bytes', () => {
    expect(verify(headers(hmac()), BODY)).toEqual({ ok: true, id: ID, timestamp: NOW / 1000, scheme: 'v1' });
    expect(verify(headers(hmac()), Buffer.from(BODY)).ok).toBe(true);
  });
  it('rejects a tampered body, id or timestamp', () => {
    expect(verify(headers(hmac()), BODY.replace('r1', 'r2'))).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verify(headers(hmac(), TS, 'msg_other'), BODY)).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
    expect(verify(headers(hmac(), String(NOW / 1000 + 1)), BODY)).toMatchObject({ ok: false });
  });
  it('rejects a signature made with another secret', () => {
    expect(verify(headers(hmac(BODY, ID, TS, randomBytes(32))), BODY)).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
});

describe('v1a (Ed25519)', () => {
  it('accepts whpk_, PEM and bare base64 public keys', () => {
    for (const key of [WHPK, publicKey.export({ format: 'pem', type: 'spki' }).toString(), WHPK.slice(5)]) {
      expect(verifier({ publicKeys: [key] })(headers(ed()), BODY)).toMatchObject({ ok: true, scheme: 'v1a' });
    }
    expect(formatPublicKey(privateKey)).toBe(WHPK);
  });
  it('rejects a tampered body and a signature by another key', () => {
    const verify = verifier({ publicKeys: [WHPK] });
    expect(verify(headers(ed()), `${BODY} `)).toMatchObject({ ok: false, reason: 'signature_mismatch' });
    const other = generateKeyPairSync('ed25519').privateKey;
    expect(verify(headers(ed(BODY, ID, TS, other)), BODY)).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
});

describe('timestamps', () => {
  const verify = verifier({ secrets: [SECRET] });
  it('accepts up to 5 minutes either way and rejects beyond', () => {
    for (const delta of [-300, 300]) {
      const ts = String(NOW / 1000 + delta);
      expect(verify(headers(hmac(BODY, ID, ts), ts), BODY).ok).toBe(true);
    }
    const old = String(NOW / 1000 - 301);
    expect(verify(headers(hmac(BODY, ID, old), old), BODY)).toMatchObject({
      ok: false,
      reason: 'timestamp_too_old',
    });
    const future = String(NOW / 1000 + 301);
    expect(verify(headers(hmac(BODY, ID, future), future), BODY)).toMatchObject({
      ok: false,
      reason: 'timestamp_too_new',
    });
  });
  it('rejects a timestamp that is not unix seconds, and missing headers', () => {
    expect(verify(headers(hmac(), '2026-01-01T00:00:00Z'), BODY)).toMatchObject({
      reason: 'invalid_timestamp',
    });
    expect(verify({ id: ID, timestamp: TS, signature: undefined }, BODY)).toMatchObject({
      reason: 'missing_headers',
    });
    expect(verify(headers(hmac(), TS, 'x'.repeat(257)), BODY)).toMatchObject({ reason: 'invalid_id' });
  });
});

describe('several signatures and keys (rotation)', () => {
  it('accepts when any listed signature verifies with any configured key', () => {
    const oldSecret = `whsec_${randomBytes(24).toString('base64')}`;
    const verify = verifier({ secrets: [oldSecret, SECRET], publicKeys: [WHPK] });
    const junk = `v1,${randomBytes(32).toString('base64')}`;
    expect(verify(headers(`${junk} ${hmac()}`), BODY)).toMatchObject({ ok: true, scheme: 'v1' });
    expect(verify(headers(`v2,abc ${junk} ${ed()}`), BODY)).toMatchObject({ ok: true, scheme: 'v1a' });
    expect(verify(headers(`${junk} v1a,${randomBytes(64).toString('base64')}`), BODY)).toMatchObject({
      ok: false,
      reason: 'signature_mismatch',
    });
  });
  it('says when no signature is of a scheme we hold a key for', () => {
    expect(verifier({ publicKeys: [WHPK] })(headers(hmac()), BODY)).toMatchObject({ reason: 'no_signature' });
    expect(verifier({ secrets: [SECRET] })(headers('v1,not base64!'), BODY)).toMatchObject({
      reason: 'no_signature',
    });
  });
});

describe('keys and signing', () => {
  it('refuses bad keys without echoing them', () => {
    expect(() => parseHmacSecret('whsec_!!notbase64!!')).toThrow(/^a webhook secret must be/);
    expect(() => parsePublicKey('whpk_AAAA')).toThrow(/^a webhook public key must be/);
    expect(() => createStandardWebhookVerifier({})).toThrow(/at least one/);
  });
  it('signStandardWebhook produces exactly the vectors above, both schemes', () => {
    const signed = signStandardWebhook({ secret: SECRET, privateKey }, ID, NOW / 1000, BODY);
    expect(signed['webhook-signature']).toBe(`${hmac()} ${ed()}`);
    expect(signed['webhook-id']).toBe(ID);
    expect(signed['webhook-timestamp']).toBe(TS);
  });
});
