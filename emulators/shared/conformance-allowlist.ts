// The only divergences from the reference documents the check excuses: each where the vendor's own
// guides or real answers differ from its published document, matching only where that reason applies (a
// status, a route, a member). Also the routes outside every document (checked by their own tests) and
// what an unknown resource answers. Statuses and error bodies are conformance-statuses.ts's, headers
// conformance-headers.ts's.
import type { ConformanceApi, ErrorLike } from './conformance-spec.ts';

export interface Where {
  route: string;
  status: number;
  part: 'response' | 'request';
}

/** Divergences where the emulator follows the vendor's real answers, not its spec. Narrow by design. */
export const ALLOWLIST: {
  api: ConformanceApi;
  why: string;
  matches: (e: ErrorLike, where: Where) => boolean;
}[] = [
  {
    api: 'hubspot',
    why: 'StandardError requires `errors` and `links`, but HubSpot\'s documented multi-status answer ("Using object APIs" guide) sends neither',
    matches: (e, w) =>
      w.status === 207 &&
      e.keyword === 'required' &&
      /^\/errors\/\d+$/.test(e.instancePath) &&
      ['errors', 'links'].includes(String(e.params.missingProperty)),
  },
  {
    api: 'hubspot',
    why: 'search returns requested properties without a value as null (the SDK types them string | null); the spec says string',
    matches: (e, w) =>
      w.part === 'response' &&
      w.route.endsWith('/search') &&
      e.keyword === 'type' &&
      /^\/results\/\d+\/properties\/[^/]+$/.test(e.instancePath) &&
      e.data === null,
  },
  {
    api: 'hubspot',
    why: 'unlabelled association types come with label: null (HubSpot answers); the spec says string',
    matches: (e, w) =>
      w.route.startsWith('/crm/v4/') &&
      e.keyword === 'type' &&
      /\/associationTypes\/\d+\/label$/.test(e.instancePath) &&
      e.data === null,
  },
  {
    api: 'hubspot',
    why: 'the Companies and Notes guides create records without `associations` (HubSpot accepts it absent); SimplePublicObjectInputForCreate marks it required',
    matches: (e, w) =>
      w.part === 'request' &&
      /^\/crm\/v3\/objects\/[a-z]+(\/batch\/create)?$/.test(w.route) &&
      e.keyword === 'required' &&
      /^(\/inputs\/\d+)?$/.test(e.instancePath) &&
      e.params.missingProperty === 'associations',
  },
  {
    api: 'hubspot',
    why: 'the CRM search guide makes every member of a search request optional (no filter: all records; limit 10 by default); PublicObjectSearchRequest marks after, filterGroups, limit, properties and sorts required',
    matches: (e, w) =>
      w.part === 'request' &&
      w.route.endsWith('/search') &&
      e.keyword === 'required' &&
      e.instancePath === '' &&
      ['after', 'filterGroups', 'limit', 'properties', 'sorts'].includes(String(e.params.missingProperty)),
  },
  {
    api: 'hubspot',
    why: 'the CRM search guide sorts with objects {propertyName, direction}; PublicObjectSearchRequest types sorts as strings',
    matches: (e, w) =>
      w.part === 'request' &&
      w.route.endsWith('/search') &&
      e.keyword === 'type' &&
      /^\/sorts\/\d+$/.test(e.instancePath) &&
      typeof e.data === 'object' &&
      e.data !== null,
  },
  {
    api: 'buyer-intel',
    why: 'BridgeRowColumnValueResponse.status is typed ["string", "null"] but its enum lists no null: a column not processed yet answers status null, which the type allows',
    matches: (e) =>
      e.keyword === 'enum' && /\/columns\/[^/]+\/status$/.test(e.instancePath) && e.data === null,
  },
];

/** Routes outside the reference documents that are not REST answers of theirs, each with its reason. */
export const UNDOCUMENTED_ROUTES: { api: ConformanceApi; path: RegExp; name: string; why: string }[] = [
  {
    api: 'buyer-intel',
    name: 'getBuyerSchema and searchBuyersByCriteria',
    path: /^\/api\/external\/buyer\/(schema|search)$/,
    why: 'getBuyerSchema and searchBuyersByCriteria: named by the provider contract (buyer-intelligence-api.md), shapes "not shown" there and absent from the published OpenAPI; test/buyer-intel/client-operations.unit.test.ts covers them',
  },
  {
    api: 'salesforce',
    name: 'the Streaming API (CometD)',
    path: /^\/cometd\//,
    why: 'Streaming API (CometD/Bayeux): not a REST resource; its messages are checked by test/sandbox/salesforce-streaming.unit.test.ts',
  },
  {
    api: 'salesforce',
    name: 'the Metadata API (SOAP)',
    path: /^\/services\/Soap\//,
    why: 'the Metadata API answers SOAP XML, checked by test/sandbox/salesforce-metadata.unit.test.ts',
  },
];

/** What a documented answer to a resource that does not exist looks like, per API (all others: reported). */
export const UNKNOWN_RESOURCE: Partial<
  Record<ConformanceApi, { why: string; answers: (body: string) => boolean }>
> = {
  salesforce: {
    why: 'REST guide, "Status Codes and Error Responses": 404 NOT_FOUND "The requested resource does not exist"',
    answers: (body) => {
      try {
        const parsed = JSON.parse(body) as unknown;
        return (
          Array.isArray(parsed) &&
          parsed.length === 1 &&
          (parsed[0] as { errorCode?: unknown }).errorCode === 'NOT_FOUND' &&
          typeof (parsed[0] as { message?: unknown }).message === 'string'
        );
      } catch {
        return false;
      }
    },
  },
};
