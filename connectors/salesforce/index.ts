// Salesforce's descriptor: everything the service needs of Salesforce, and nothing the core has to know.
import { withTimeout } from '../../src/shared/deadline.ts';
import type { CrmDescriptor } from '../descriptor.ts';
import { CrmAuthError } from '../types.ts';
import { accountChangeSource } from './account-changes.ts';
import { readSalesforceConfig, type SalesforceConfig, salesforceVariables } from './config.ts';
import { salesforceConnection } from './connection.ts';
import { salesforceConfiguredState } from './connection-state.ts';
import { id15, isSalesforceId, salesforceId18 } from './ids.ts';
import { salesforceOutboundHandler } from './outbound-messages.ts';
import { HMAC_TOLERANCE_SECONDS, verifySalesforceRequest } from './request-signature.ts';
import { type SalesforceTenant, salesforceTenants } from './tenants.ts';

export const salesforce: CrmDescriptor<SalesforceConfig, SalesforceTenant> = {
  kind: 'salesforce',
  label: 'Salesforce',
  accountNoun: 'Account',
  tenantNoun: 'org',
  // Orgs are configured in either form; we key them by the 15-character one, of an id whose checksum
  // holds (so `00D…ZZZ` is no org of ours).
  tenantId: (raw) => (isSalesforceId(raw, '00D') ? id15(raw) : undefined),
  // Account ids in their 18-character form: the 15-character one names the same Account.
  accountId: (raw) => (isSalesforceId(raw, '001') ? salesforceId18(raw) : undefined),
  config: {
    variables: salesforceVariables,
    fileKeys: { 'salesforce.events': 'SALESFORCE_EVENTS', 'salesforce.notes': 'SALESFORCE_NOTES' },
    read: readSalesforceConfig,
    hint: 'SALESFORCE_INSTANCE_URL, SALESFORCE_CLIENT_ID, SALESFORCE_CLIENT_SECRET, SALESFORCE_REFRESH_TOKEN, SALESFORCE_ORG_ID for Salesforce',
  },
  configuredTenants: (config) => (config.org ? [id15(config.org.orgId)] : []),
  connect(config, runtime) {
    if (!config.org) return { connections: [], eventSources: [] };
    const connector = salesforceConnection(config.app, config.org, {
      recordCall: runtime.recordCall,
      budget: { redis: runtime.redis, prefix: runtime.prefix },
    });
    const events = config.events ?? ['outbound'];
    return {
      connections: [
        {
          tenant: id15(config.org.orgId),
          connector,
          inboundSecrets: config.org.outboundTokens ?? [],
          requestSecrets: config.requestSecrets ?? [],
        },
      ],
      eventSources: events.includes('cdc')
        ? [
            accountChangeSource(
              connector,
              { instanceUrl: config.org.instanceUrl, apiVersion: config.app.apiVersion },
              runtime,
            ),
          ]
        : [],
    };
  },
  tenants: salesforceTenants,
  webhook: (_config, context) =>
    salesforceOutboundHandler({
      isKnownOrg: context.isKnownTenant,
      tokensOf: context.inboundSecretsOf,
      orgs: context.tenants,
    }),
  // The quick action's Apex signs with its own org's secret (SALESFORCE_REFRESH_SECRETS for the org the
  // environment names, `requestSecrets` in a stored org's record; two while rotating): the signature is
  // checked with the secrets of the org it names alone, so one org's secret never acts on another.
  // v3 covers the org and the running user (the decision's actor); v1/v2 name no org and are checked
  // with the secrets of the one org served. A nonce remembered past the tolerance
  // stops replays.
  signedRequests: (_config, runtime, orgs) => ({
    header: 'x-buyerintel-signature',
    async verify(request) {
      const named = request.headers['x-buyerintel-org'];
      const served = orgs.tenants();
      const org =
        named !== undefined
          ? isSalesforceId(named, '00D')
            ? id15(named)
            : undefined
          : served.length === 1
            ? served[0]
            : undefined;
      if (org === undefined)
        return {
          ok: false,
          message:
            named !== undefined
              ? 'Salesforce signature: X-BuyerIntel-Org must be the 18-character org id (00D…)'
              : `Salesforce signature: this signature names no org and ${served.length} are served: sign with the current version (v3)`,
        };
      // An org we do not serve, or one without secrets, has nothing to check against: the same answer
      // as a wrong signature, so the reply does not tell which orgs we serve.
      const secrets = served.includes(org) ? orgs.requestSecretsOf(org) : [];
      const check = verifySalesforceRequest({ secrets, headers: request.headers, body: request.body });
      if (!check.ok) return { ok: false, message: `Salesforce signature: ${check.reason}` };
      const fresh = await runtime.redis.set(
        `${runtime.prefix}:api-nonce:${check.nonce}`,
        '1',
        'EX',
        HMAC_TOLERANCE_SECONDS * 2,
        'NX',
      );
      if (fresh !== 'OK') return { ok: false, message: 'Salesforce signature: the nonce was already used' };
      // v1/v2 name no org: left unnamed, the API takes them only while one org is served.
      return { ok: true, user: check.user, ...(named !== undefined ? { tenant: org } : {}) };
    },
  }),
  signedRequestScheme: {
    name: 'salesforceHmac',
    scheme: {
      type: 'apiKey',
      in: 'header',
      name: 'X-BuyerIntel-Signature',
      description:
        'v3=hex(HMAC-SHA256(secret, timestamp + "." + nonce + "." + org + "." + user + "." + body)) with X-BuyerIntel-Timestamp, a single-use X-BuyerIntel-Nonce, the 18-character org id in X-BuyerIntel-Org and the Salesforce username in X-BuyerIntel-User: the caller acts on that org only. v2 (no org) and v1 (no org, no user) are accepted only while one Salesforce org is served.',
    },
  },
  async doctor(config, timeoutMs) {
    const { org, app } = config;
    if (!org) return { status: 'pass', detail: 'connected app only (orgs come from tenants)' };
    try {
      const connector = salesforceConnection(app, org, {});
      const page = await withTimeout(connector.listAccounts([], { limit: 1 }), timeoutMs, 'query Account');
      const n = page.accounts.length;
      return {
        status: 'pass',
        detail: `read ${n} Account${n === 1 ? '' : 's'} of org ${org.orgId} at ${org.instanceUrl}`,
      };
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err);
      return {
        status: 'fail',
        detail:
          err instanceof CrmAuthError
            ? `the Salesforce credentials (SALESFORCE_REFRESH_TOKEN, client id/secret) were refused: ${why}`
            : why,
      };
    }
  },
  configuredState: salesforceConfiguredState,
  secretHeaders: ['x-buyerintel-signature'],
  webhookSummary: 'Salesforce Outbound Messages (SOAP, answered with an Ack)',
};
