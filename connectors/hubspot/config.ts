// HubSpot's section of the configuration: the app's own credentials (webhook signatures, OAuth
// refresh, the install flow), optionally one portal's private-app token from the environment, and the
// company properties that hold an account's ids.
import { z } from 'zod';
import { httpUrl, int, missing, secret } from '../../src/shared/config-schema.ts';
import { DEFAULT_ID_FIELD_NAMES, type IdFieldNames, idFieldsVariable } from '../account-ids.ts';

/** A company property's internal name. */
const propertyProblem = (name: string) =>
  /^[a-z][a-z0-9_]*$/.test(name)
    ? undefined
    : 'is not a property internal name (lower-case letters, digits and _, a letter first)';

export const hubspotVariables = {
  HUBSPOT_ACCESS_TOKEN: secret.optional(),
  HUBSPOT_PORTAL_ID: z.string().trim().regex(/^\d+$/, 'must be the numeric portal (hub) id').optional(),
  HUBSPOT_CLIENT_SECRET: secret.optional(),
  /** The app's OAuth client id: needed to refresh the tokens of portals installed through OAuth. */
  HUBSPOT_CLIENT_ID: z.string().trim().min(1).optional(),
  /** HubSpot's consent page for /oauth/hubspot/install. */
  HUBSPOT_AUTHORIZE_URL: httpUrl.default('https://app.hubspot.com/oauth/authorize'),
  HUBSPOT_APP_ID: z.string().trim().regex(/^\d+$/, 'must be the numeric app id').optional(),
  HUBSPOT_BASE_PATH: httpUrl.default('https://api.hubapi.com'),
  /** Calls per rolling 10 s our app may make per portal (100 Free/Starter, 190 Pro/Enterprise, 110 OAuth apps). */
  HUBSPOT_CALLS_PER_10S: int(1, 1_000, 100),
  HUBSPOT_TIMEOUT_MS: int(100, 120_000, 30_000),
  /** Company properties holding an account's ids: `nces=…,ipeds=…,census=…,buyer=…`, `none`, or ours. */
  HUBSPOT_ID_PROPERTIES: idFieldsVariable(DEFAULT_ID_FIELD_NAMES, propertyProblem),
};

export interface HubSpotApp {
  clientSecret: string;
  clientId?: string | undefined;
  appId?: string | undefined;
  basePath: string;
  /** HubSpot's per-10-second call limit for this app, shared by every worker (none: not enforced). */
  callsPer10s?: number | undefined;
  /** Deadline per HubSpot call. Default 30 s. */
  timeoutMs?: number | undefined;
  /** HubSpot's consent page for the install flow (the emulator's in tests). */
  authorizeUrl?: string | undefined;
  /** The company properties an account's ids are read from, in every portal. Default: ours. */
  idProperties?: IdFieldNames | undefined;
}

export interface HubSpotConfig {
  app: HubSpotApp;
  /** The portal the environment names, with its private-app token. */
  portal?: { portalId: string; accessToken: string } | undefined;
}

const CONNECTION = ['HUBSPOT_ACCESS_TOKEN', 'HUBSPOT_PORTAL_ID'] as const;
const GROUP = [...CONNECTION, 'HUBSPOT_CLIENT_SECRET'] as const;

/** All of the group or none; with tenants in Redis the app's secret alone serves the stored portals. */
export function readHubSpotConfig(
  vars: Record<string, unknown>,
  options: { tenantsInRedis: boolean },
): { config?: HubSpotConfig; problems: string[] } {
  const str = (n: string) => vars[n] as string | undefined;
  const wantsPortal =
    CONNECTION.some((n) => vars[n] !== undefined) ||
    (!options.tenantsInRedis && vars.HUBSPOT_CLIENT_SECRET !== undefined);
  const problems = wantsPortal
    ? missing(vars, GROUP).map((n) => `${n} is required (HubSpot is configured)`)
    : [];
  const clientSecret = str('HUBSPOT_CLIENT_SECRET');
  if (problems.length || !clientSecret || (!wantsPortal && !options.tenantsInRedis)) return { problems };
  const accessToken = str('HUBSPOT_ACCESS_TOKEN');
  const portalId = str('HUBSPOT_PORTAL_ID');
  return {
    problems,
    config: {
      app: {
        clientSecret,
        clientId: str('HUBSPOT_CLIENT_ID'),
        appId: str('HUBSPOT_APP_ID'),
        basePath: str('HUBSPOT_BASE_PATH') ?? 'https://api.hubapi.com',
        callsPer10s: vars.HUBSPOT_CALLS_PER_10S as number | undefined,
        timeoutMs: vars.HUBSPOT_TIMEOUT_MS as number | undefined,
        authorizeUrl: str('HUBSPOT_AUTHORIZE_URL'),
        idProperties: vars.HUBSPOT_ID_PROPERTIES as IdFieldNames | undefined,
      },
      ...(accessToken && portalId ? { portal: { portalId, accessToken } } : {}),
    },
  };
}
