// Salesforce's section of the configuration: the connected app (client id/secret, login URL, API
// version, how notes are stored, the Account fields that hold an account's ids), one org from the
// environment, how we learn of new Accounts, and the quick action's signing secrets.
import { z } from 'zod';
import { httpUrl, missing, secret, secretList, splitList } from '../../src/shared/config-schema.ts';
import {
  ACCOUNT_ID_KINDS,
  DEFAULT_ID_FIELD_NAMES,
  type IdFieldNames,
  idFieldsVariable,
} from '../account-ids.ts';
import { defaultFieldName } from './fields.ts';
import { isSalesforceId } from './ids.ts';

/** Our id fields as Salesforce spells them: `BuyerIntel_MatchNcesId__c`, … */
export const SALESFORCE_ID_FIELD_DEFAULTS = Object.fromEntries(
  ACCOUNT_ID_KINDS.map((kind) => [kind, defaultFieldName(DEFAULT_ID_FIELD_NAMES[kind])]),
) as Record<(typeof ACCOUNT_ID_KINDS)[number], string>;

/** An Account field's API name: standard (`AccountNumber`), custom (`X__c`) or a package's (`ns__X__c`). */
const fieldProblem = (name: string) =>
  /^[A-Za-z][A-Za-z0-9_]*$/.test(name) && !name.endsWith('_')
    ? undefined
    : 'is not a field API name (letters, digits and _, e.g. NCES_Id__c)';

/** An Outbound Message token travels in a URL: 32-128 URL-safe characters (e.g. `openssl rand -hex 32`). */
const OUTBOUND_TOKEN = /^[A-Za-z0-9_-]{32,128}$/;
export const OUTBOUND_TOKEN_PROBLEM = 'each token must be 32-128 characters of A-Z a-z 0-9 _ -';
export const outboundTokensSchema = (message: string) =>
  z.array(z.string()).refine((tokens) => tokens.every((t) => OUTBOUND_TOKEN.test(t)), message);

export const salesforceVariables = {
  SALESFORCE_INSTANCE_URL: httpUrl.optional(),
  SALESFORCE_LOGIN_URL: httpUrl.default('https://login.salesforce.com'),
  SALESFORCE_CLIENT_ID: secret.optional(),
  SALESFORCE_CLIENT_SECRET: secret.optional(),
  SALESFORCE_REFRESH_TOKEN: secret.optional(),
  SALESFORCE_ORG_ID: z
    .string()
    .trim()
    .refine((id) => isSalesforceId(id, '00D'), 'must be the org id (00D…, 15 or 18 characters, checksum)')
    .optional(),
  /**
   * The token the org's Outbound Messages carry in their endpoint URL (`…/webhooks/salesforce?token=`):
   * one, or two while rotating (add the new one, change the endpoint, drop the old one).
   */
  SALESFORCE_OUTBOUND_TOKENS: z
    .string()
    .optional()
    .transform(splitList)
    .pipe(outboundTokensSchema(OUTBOUND_TOKEN_PROBLEM))
    .refine((tokens) => tokens.length <= 2, 'at most two tokens: the current one and the next'),
  SALESFORCE_EVENTS: z
    .string()
    .optional()
    .transform((v, ctx) => {
      const items = [...new Set(splitList(v ?? 'outbound'))];
      const bad = items.filter((i) => i !== 'outbound' && i !== 'cdc');
      if (bad.length || !items.length)
        ctx.addIssue({ code: 'custom', message: 'must be outbound, cdc or outbound,cdc' });
      return items as ('outbound' | 'cdc')[];
    }),
  SALESFORCE_NOTES: z.enum(['task', 'content-note']).default('task'),
  SALESFORCE_API_VERSION: z
    .string()
    .regex(/^\d{2}\.0$/, 'must look like 62.0')
    .default('62.0'),
  /**
   * The secrets the quick action of the org SALESFORCE_ORG_ID names signs its calls with (that org's
   * alone; two while rotating). An org kept as a tenant has its own, in its record.
   */
  SALESFORCE_REFRESH_SECRETS: secretList(32, 'each secret must be at least 32 characters').refine(
    (secrets) => (secrets?.length ?? 0) <= 2,
    'at most two secrets: the current one and the next',
  ),
  /** Account fields holding an account's ids: `nces=…,ipeds=…,census=…,buyer=…`, `none`, or ours. */
  SALESFORCE_ID_FIELDS: idFieldsVariable(SALESFORCE_ID_FIELD_DEFAULTS, fieldProblem),
};

export interface SalesforceApp {
  clientId: string;
  clientSecret: string;
  loginUrl: string;
  apiVersion: string;
  notes?: 'task' | 'content-note' | undefined;
  /** The Account fields an account's ids are read from, in every org. Default: ours. */
  idFieldNames?: IdFieldNames | undefined;
}

export interface SalesforceConfig {
  app: SalesforceApp;
  /** The org the environment names. */
  org?:
    | {
        orgId: string;
        instanceUrl: string;
        refreshToken?: string | undefined;
        accessToken?: string | undefined;
        /** What its Outbound Messages carry as `?token=` (none: every message is refused). */
        outboundTokens?: string[] | undefined;
      }
    | undefined;
  /** How we learn about new Accounts: Outbound Messages to /webhooks/salesforce, CDC streaming, or both. */
  events?: ('outbound' | 'cdc')[] | undefined;
  /** The quick action's signing secrets. */
  requestSecrets?: string[] | undefined;
}

const CONNECTION = ['SALESFORCE_INSTANCE_URL', 'SALESFORCE_REFRESH_TOKEN', 'SALESFORCE_ORG_ID'] as const;
/** In the order .env.example documents them. */
const GROUP = [
  'SALESFORCE_INSTANCE_URL',
  'SALESFORCE_CLIENT_ID',
  'SALESFORCE_CLIENT_SECRET',
  'SALESFORCE_REFRESH_TOKEN',
  'SALESFORCE_ORG_ID',
] as const;

export function readSalesforceConfig(
  vars: Record<string, unknown>,
  options: { tenantsInRedis: boolean },
): { config?: SalesforceConfig; problems: string[] } {
  const str = (n: string) => vars[n] as string | undefined;
  const wantsOrg =
    CONNECTION.some((n) => vars[n] !== undefined) ||
    (!options.tenantsInRedis &&
      (vars.SALESFORCE_CLIENT_ID !== undefined || vars.SALESFORCE_CLIENT_SECRET !== undefined));
  const problems = wantsOrg
    ? missing(vars, GROUP).map((n) => `${n} is required (Salesforce is configured)`)
    : [];
  const clientId = str('SALESFORCE_CLIENT_ID');
  const clientSecret = str('SALESFORCE_CLIENT_SECRET');
  if (problems.length || !clientId || !clientSecret || (!wantsOrg && !options.tenantsInRedis))
    return { problems };
  const orgId = str('SALESFORCE_ORG_ID');
  const instanceUrl = str('SALESFORCE_INSTANCE_URL');
  // Secrets for no org would be shared by every stored org: each org has its own instead.
  if ((vars.SALESFORCE_REFRESH_SECRETS as string[] | undefined)?.length && !orgId)
    return {
      problems: [
        'SALESFORCE_REFRESH_SECRETS are the secrets of the org SALESFORCE_ORG_ID names: set it, or give each stored org its own ("requestSecrets" in tenants add salesforce)',
      ],
    };
  return {
    problems,
    config: {
      app: {
        clientId,
        clientSecret,
        loginUrl: str('SALESFORCE_LOGIN_URL') ?? 'https://login.salesforce.com',
        apiVersion: str('SALESFORCE_API_VERSION') ?? '62.0',
        notes: vars.SALESFORCE_NOTES as 'task' | 'content-note' | undefined,
        idFieldNames: vars.SALESFORCE_ID_FIELDS as IdFieldNames | undefined,
      },
      ...(orgId && instanceUrl
        ? {
            org: {
              orgId,
              instanceUrl,
              refreshToken: str('SALESFORCE_REFRESH_TOKEN'),
              outboundTokens: vars.SALESFORCE_OUTBOUND_TOKENS as string[] | undefined,
            },
          }
        : {}),
      events: vars.SALESFORCE_EVENTS as ('outbound' | 'cdc')[] | undefined,
      requestSecrets: vars.SALESFORCE_REFRESH_SECRETS as string[] | undefined,
    },
  };
}
