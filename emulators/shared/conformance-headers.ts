// Headers the vendors document on their answers that the reference documents do not mark required (or
// do not mention), checked on the answers that carry them: per API, the document routes, the statuses,
// and the source. `present: false` is a header the source says is absent there. A header that any
// answer may carry but only in one format (Retry-After) is checked wherever it appears.
import type { ConformanceApi } from './conformance-spec.ts';

export interface HeaderRule {
  api: ConformanceApi;
  name: string;
  /** Matched against the document's path template. */
  route: RegExp;
  statuses: (status: number) => boolean;
  /** Only for requests of this kind (e.g. a private app's token); all when absent. */
  when?: (request: { authorization: string }) => boolean;
  presence?: 'required' | 'absent' | 'optional';
  pattern?: RegExp;
  why: string;
}

const DIGITS = /^\d+$/;
const USAGE =
  'HubSpot usage guidelines (crm-facts.md, rate limits: "Headers X-HubSpot-RateLimit-Max, -Remaining, -Interval-Milliseconds, -Daily, -Daily-Remaining")';
// The search endpoints have their own limit and answer without these headers (emulators/hubspot/
// operation.ts, the usage guidelines' search section); the OAuth endpoints are not CRM calls.
const CRM_NOT_SEARCH = /^\/crm\/(?!.*\/search$)/;
// Which answers count against the limits: 401 is not attributed to an app, and the emulator refuses a
// body that is not JSON (415), too large (413) or unparseable (400) before the call reaches the limits;
// HubSpot documents neither way for those, so they are left unchecked rather than guessed.
const COUNTED = (s: number) => ![400, 401, 413, 415].includes(s);
const privateApp = (r: { authorization: string }) => /^Bearer\s+pat-/i.test(r.authorization);

export const HEADER_RULES: readonly HeaderRule[] = [
  ...[
    'X-HubSpot-RateLimit-Max',
    'X-HubSpot-RateLimit-Remaining',
    'X-HubSpot-RateLimit-Interval-Milliseconds',
  ].map(
    (name): HeaderRule => ({
      api: 'hubspot',
      name,
      route: CRM_NOT_SEARCH,
      statuses: COUNTED,
      pattern: DIGITS,
      why: `${USAGE} on every CRM answer but search's`,
    }),
  ),
  ...['X-HubSpot-RateLimit-Daily', 'X-HubSpot-RateLimit-Daily-Remaining'].flatMap((name): HeaderRule[] => [
    {
      api: 'hubspot',
      name,
      route: CRM_NOT_SEARCH,
      statuses: COUNTED,
      when: privateApp,
      pattern: DIGITS,
      why: `${USAGE}: the daily limit is a private app's (its tokens are pat-…)`,
    },
    {
      api: 'hubspot',
      name,
      route: CRM_NOT_SEARCH,
      statuses: COUNTED,
      when: (r) => !privateApp(r),
      presence: 'absent',
      why: 'HubSpot changelog "Rate limit headers will now appear for OAuth authenticated calls": "OAuth authenticated calls will not include X-HubSpot-RateLimit-Daily or X-HubSpot-RateLimit-Daily-Remaining"',
    },
  ]),
  {
    api: 'hubspot',
    name: 'Retry-After',
    route: /./,
    statuses: (s) => s === 477,
    why: 'developers.hubspot.com/docs/api-reference/error-handling: "477 Migration in Progress … HubSpot will return a Retry-After response header"',
  },
  {
    api: 'salesforce',
    name: 'Sforce-Limit-Info',
    route: /^\/services\/data\//,
    statuses: () => true,
    pattern: /^api-usage=\d+\/\d+$/,
    why: 'REST API Developer Guide, "Limits Info Header": returned in each request to the REST API, refusals included (the documents mark it required on success answers only)',
  },
  ...(['hubspot', 'salesforce', 'buyer-intel'] as const).map(
    (api): HeaderRule => ({
      api,
      name: 'Retry-After',
      route: /./,
      statuses: () => true,
      presence: 'optional',
      // RFC 9110 §10.2.3: delay-seconds or an HTTP-date.
      pattern: /^(\d+|[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT)$/,
      why: 'RFC 9110 §10.2.3: Retry-After is delay-seconds or an HTTP-date, wherever it is sent',
    }),
  ),
];
