// The service the fuzz sends its plans to (issue 45), for the CI test and bench/fuzz.ts alike: the
// emulators of HubSpot, Salesforce and the provider, and the service with every inbound route on (API
// keys, the admin page, the provider's webhook keys, the Salesforce org's request secret and outbound
// token). `send` adds the credentials a plan asks for and signs it now, as the real caller would.
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import { salesforceId18 } from '../../connectors/salesforce/ids.ts';
import { salesforceRequestSignatureV3 } from '../../connectors/salesforce/request-signature.ts';
import { SANDBOX_OUTBOUND_TOKEN } from '../../emulators/salesforce/index.ts';
import type { Service } from '../../src/service/runtime.ts';
import {
  formatPublicKey,
  type SigningKeys,
  signStandardWebhook,
} from '../../src/signals/standard-webhooks.ts';
import type { Auth, FuzzIds, Plan } from './fuzz-routes.ts';
import { startTestService, type TestService } from './start-service.ts';

export interface Answer {
  /** 0: no answer (the connection closed or the request timed out; `text` says which). */
  status: number;
  text: string;
}

export interface FuzzTarget {
  base: string;
  ids: FuzzIds;
  service: Service;
  send(plan: Plan): Promise<Answer>;
  /** /healthz answers 200: the process is up and serving. */
  healthy(): Promise<boolean>;
  close(): Promise<void>;
}

/** A request that takes this long is a finding too (a parser spinning on a crafted body). */
const ANSWER_TIMEOUT_MS = 30_000;

const secret = () => randomBytes(32).toString('hex');

export async function startFuzzTarget(name = 'fuzz'): Promise<FuzzTarget> {
  const apiKey = `key-${secret()}`;
  const admin = { username: 'ops', password: secret() };
  const sfSecret = secret();
  const hmacSecret = `whsec_${randomBytes(32).toString('base64')}`;
  const { privateKey } = generateKeyPairSync('ed25519');
  const running: TestService = await startTestService({
    name,
    // Our fields exist in both CRMs, as `setup` leaves them: a read of an account selects them.
    fields: true,
    settings: (s) => ({
      ...s,
      api: { apiKeys: [apiKey] },
      admin,
      buyerIntel: {
        ...s.buyerIntel,
        webhooks: { secrets: [hmacSecret], publicKeys: [formatPublicKey(privateKey)] },
      },
      crms: { ...s.crms, salesforce: { ...(s.crms.salesforce as object), requestSecrets: [sfSecret] } },
    }),
  });
  const { hs, sf, base, service } = running;
  if (!sf) throw new Error('the Salesforce emulator runs');
  const ids: FuzzIds = {
    companyId: hs.store.createCompany({ name: 'City of Austin', state: 'TX' }, { source: 'CRM_UI' }).id,
    portalId: String(hs.portalId),
    // The 18-character form, as the quick action sends it (the 15-character one is a variant).
    orgId: salesforceId18(sf.orgId) ?? sf.orgId,
    sfAccountId: sf.store.create('Account', { Name: 'Travis County', BillingState: 'TX' }).id,
  };
  const basic = Buffer.from(`${admin.username}:${admin.password}`).toString('base64');
  const provider: Record<string, SigningKeys> = {
    valid: { privateKey },
    hmac: { secret: hmacSecret },
    both: { secret: hmacSecret, privateKey },
    'wrong-secret': { privateKey: generateKeyPairSync('ed25519').privateKey },
  };

  /** The headers (and URL) `auth` asks for, signed over exactly what is sent. */
  function credentials(auth: Auth, method: string, url: URL, body: string): Record<string, string> {
    const shift = (mode: string) => (mode === 'stale' ? -6 * 60_000 : mode === 'future' ? 6 * 60_000 : 0);
    switch (auth.as) {
      case 'none':
        return {};
      case 'api-key':
        return { authorization: `Bearer ${apiKey}` };
      case 'admin':
        return { authorization: `Basic ${basic}`, 'sec-fetch-site': 'same-origin' };
      case 'hubspot': {
        if (auth.mode === 'none') return {};
        if (auth.mode === 'garbage')
          return { 'x-hubspot-signature-v3': 'AAAA', 'x-hubspot-request-timestamp': 'not a number' };
        const timestamp = String(Date.now() + shift(auth.mode));
        const key = auth.mode === 'wrong-secret' ? 'not-the-client-secret' : hs.clientSecret;
        const uri = `${url.protocol}//${url.host}${url.pathname}${url.search}`;
        return {
          'x-hubspot-signature-v3': hubspotSignatureV3(key, method, uri, body, timestamp),
          'x-hubspot-request-timestamp': timestamp,
        };
      }
      case 'salesforce': {
        if (auth.mode === 'none') return {};
        const timestamp = String(Math.floor((Date.now() + shift(auth.mode)) / 1000));
        const nonce = auth.nonce ?? randomBytes(16).toString('hex');
        const key = auth.mode === 'wrong-secret' ? secret() : sfSecret;
        return {
          'x-buyerintel-timestamp': auth.mode === 'garbage' ? 'NaN' : timestamp,
          'x-buyerintel-nonce': nonce,
          'x-buyerintel-org': auth.org,
          'x-buyerintel-user': auth.user,
          'x-buyerintel-signature':
            auth.mode === 'garbage'
              ? 'v3=zz'
              : salesforceRequestSignatureV3(key, timestamp, nonce, auth.org, auth.user, body),
        };
      }
      case 'outbound-token': {
        const token = { valid: SANDBOX_OUTBOUND_TOKEN, 'wrong-secret': secret(), garbage: '%zz%00' }[
          auth.mode as string
        ];
        if (token !== undefined) url.searchParams.append('token', token);
        return {};
      }
      case 'standard-webhooks': {
        if (auth.mode === 'none') return {};
        const id = auth.id ?? `msg_${randomUUID()}`;
        const seconds = Math.floor((Date.now() + shift(auth.mode)) / 1000);
        const keys = provider[auth.mode] ?? provider.valid ?? {};
        const headers = signStandardWebhook(keys, id, seconds, body);
        if (auth.timestamp !== null) headers['webhook-timestamp'] = auth.timestamp;
        if (auth.mode === 'garbage') headers['webhook-signature'] = 'v1,AAAA v1a,@@@ v2';
        return headers;
      }
    }
  }

  async function send(plan: Plan): Promise<Answer> {
    const url = new URL(`${base}${plan.path}`);
    // What goes on the wire: a lone surrogate becomes U+FFFD, and the signature is over those bytes.
    const body = plan.body === undefined ? undefined : Buffer.from(plan.body, 'utf8').toString('utf8');
    const auth = credentials(plan.auth, plan.method, url, body ?? '');
    try {
      const res = await fetch(url, {
        method: plan.method,
        headers: { ...plan.headers, ...auth },
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS),
      });
      return { status: res.status, text: await res.text() };
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      return {
        status: 0,
        text: `${(err as Error).name}: ${cause?.code ?? cause?.message ?? (err as Error).message}`,
      };
    }
  }

  return {
    base,
    ids,
    service,
    send,
    healthy: async () => (await fetch(`${base}/healthz`).catch(() => undefined))?.status === 200,
    close: () => running.close(),
  };
}
