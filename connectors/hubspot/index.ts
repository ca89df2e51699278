// HubSpot's descriptor: everything the service needs of HubSpot, and nothing the core has to know.
import { createHash } from 'node:crypto';
import type { CrmDescriptor } from '../descriptor.ts';
import { hubspotCardUser } from './card-user.ts';
import { type HubSpotConfig, hubspotVariables, readHubSpotConfig } from './config.ts';
import { hubspotConnection } from './connection.ts';
import { hubspotConfiguredState } from './connection-state.ts';
import { hubspotDoctor } from './doctor.ts';
import { hubspotEventHandler } from './events.ts';
import { hubspotId } from './ids.ts';
import { hubspotInstallRouter } from './install.ts';
import { type HubSpotTenant, hubspotTenants } from './tenants.ts';
import { SIGNATURE_TOLERANCE_MS, verifyHubSpotRequest } from './webhook-signature.ts';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const hubspot: CrmDescriptor<HubSpotConfig, HubSpotTenant> = {
  kind: 'hubspot',
  label: 'HubSpot',
  accountNoun: 'company',
  tenantNoun: 'portal',
  tenantId: (raw) => (/^[1-9]\d{0,17}$/.test(raw) ? raw : undefined),
  accountId: hubspotId,
  config: {
    variables: hubspotVariables,
    read: readHubSpotConfig,
    hint: 'HUBSPOT_ACCESS_TOKEN, HUBSPOT_PORTAL_ID, HUBSPOT_CLIENT_SECRET for HubSpot',
  },
  configuredTenants: (config) => (config.portal ? [config.portal.portalId] : []),
  connect: (config, runtime) => ({
    connections: config.portal
      ? [
          {
            tenant: config.portal.portalId,
            connector: hubspotConnection(config.app, config.portal, runtime),
          },
        ]
      : [],
    eventSources: [],
  }),
  tenants: hubspotTenants,
  webhook: (config, context) =>
    hubspotEventHandler({
      clientSecret: config.app.clientSecret,
      isKnownPortal: context.isKnownTenant,
      appId: config.app.appId,
    }),
  // hubspot.fetch from the app card signs with the app's client secret (v3) and appends the portal and
  // the user (its email and id) to the URL it signs.
  signedRequests: (config, runtime) => ({
    header: 'x-hubspot-signature-v3',
    async verify(request) {
      const check = verifyHubSpotRequest(request, config.app.clientSecret);
      if (!check.ok) return { ok: false, message: `HubSpot signature: ${check.reason}` };
      const params = new URL(request.url).searchParams;
      // HubSpot appends the portal it signs for; a URL naming a portal of its own as well is ambiguous.
      const portals = params.getAll('portalId');
      const portalId = portals[0];
      if (!portalId) return { ok: false, message: 'a HubSpot-signed request must carry portalId' };
      if (portals.length > 1) return { ok: false, message: 'a HubSpot-signed request names one portalId' };
      // A signature that changes something is taken once: it is remembered for as long as its
      // timestamp is accepted (either side of now), so a replay of a clear or an undo is refused.
      // hubspot.fetch signs every call anew, so a card's own repeat carries a new signature.
      if (!SAFE_METHODS.has(request.method.toUpperCase())) {
        const signature = request.headers['x-hubspot-signature-v3'] ?? '';
        const digest = createHash('sha256').update(signature).digest('hex');
        const fresh = await runtime.redis.set(
          `${runtime.prefix}:api-signature:hubspot:${digest}`,
          '1',
          'PX',
          SIGNATURE_TOLERANCE_MS * 2,
          'NX',
        );
        if (fresh !== 'OK') return { ok: false, message: 'HubSpot signature: already used (a replay)' };
      }
      const user = hubspotCardUser(params);
      return { ok: true, tenant: portalId, ...(user ? { user } : {}) };
    },
  }),
  routes: (config, context) => {
    const { clientId, clientSecret, basePath, authorizeUrl } = config.app;
    if (!clientId || !context.addTenant) return [];
    return [
      {
        path: '/oauth/hubspot',
        router: hubspotInstallRouter({
          clientId,
          clientSecret,
          basePath,
          authorizeUrl,
          publicBaseUrl: context.publicBaseUrl,
          features: context.features,
          redis: context.redis,
          prefix: context.prefix,
          addTenant: context.addTenant,
        }),
      },
    ];
  },
  signedRequestScheme: {
    name: 'hubspotSignature',
    scheme: {
      type: 'apiKey',
      in: 'header',
      name: 'X-HubSpot-Signature-v3',
      description:
        'hubspot.fetch from the app card: v3 signature with X-HubSpot-Request-Timestamp, portalId in the query',
    },
  },
  doctor: hubspotDoctor,
  configuredState: hubspotConfiguredState,
  // The install route exists only with the app's client id (routes above).
  connectLink: (config) =>
    config.app.clientId
      ? { href: '/oauth/hubspot/install', label: 'Install in a HubSpot portal' }
      : undefined,
  secretHeaders: ['x-hubspot-signature-v3', 'x-hubspot-signature'],
  webhookSummary: 'HubSpot company events (v3 signature)',
  // v3 signs method + full URL + body + timestamp (webhook-signature.ts), webhooks and hubspot.fetch alike.
  signsUrl: 'HubSpot signs each webhook and app-card call over the full URL it called (v3)',
};
