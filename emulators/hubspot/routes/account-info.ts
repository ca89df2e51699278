// The portal's account details (GET /account-info/v3/details, scope `oauth`), as HubSpot's API
// reference "Get account details" documents them (developers.hubspot.com/docs/api-reference/latest/
// account/account-information/get-account-details; transcribed in
// test/fixtures/reference/hubspot-account-info-v3.json): portalId, accountType, timeZone,
// companyCurrency, additionalCurrencies, utcOffset, utcOffsetMilliseconds, uiDomain and
// dataHostingLocation. The portal's hosting location is the store's (`dataHostingLocation`, default
// na1); the time zone follows it (the reference says nothing tying them: a plausible pair).
import type { RouteModule } from '../operation.ts';
import { UI_DOMAINS } from '../store.ts';

const ZONES = {
  na1: { timeZone: 'US/Eastern', utcOffset: '-05:00', utcOffsetMilliseconds: -18_000_000 },
  eu1: { timeZone: 'Europe/Dublin', utcOffset: '+00:00', utcOffsetMilliseconds: 0 },
} as const;

export const registerAccountInfoRoutes: RouteModule = (define, ctx) => {
  define('get', '/account-info/v3/details', 'accountInfo.details.get', () => {
    const location = ctx.store.dataHostingLocation;
    return {
      portalId: ctx.store.portalId,
      accountType: 'STANDARD',
      ...ZONES[location],
      companyCurrency: location === 'eu1' ? 'EUR' : 'USD',
      additionalCurrencies: [],
      uiDomain: UI_DOMAINS[location],
      dataHostingLocation: location,
    };
  });
};
