// Where the portal's record pages are: HubSpot hosts EU portals' screens on app-eu1.hubspot.com, not
// app.hubspot.com. GET /account-info/v3/details answers the portal's `uiDomain` ("app.hubspot.com",
// "app-eu1.hubspot.com") and `dataHostingLocation` ("na1", "eu1") (HubSpot's API reference, "Get
// account details": developers.hubspot.com/docs/api-reference/latest/account/account-information/
// get-account-details). Asked once a connection (the connector lives as long as it) and kept; a
// failure falls back to app.hubspot.com and never fails a page or a job: asked again after a while,
// since a transient failure should not leave an EU portal's links wrong until a restart.
import { z } from 'zod';
import type { HubSpotCalls } from './client.ts';

export const DEFAULT_UI_DOMAIN = 'app.hubspot.com';
/** How long a failed ask keeps the fallback before asking again. */
const RETRY_AFTER_MS = 10 * 60_000;
/** How long a page waits for the first answer before using the fallback for this render. */
const WAIT_MS = 1_500;

// A host name of HubSpot's app, nothing else: the answer becomes a link's origin.
const DETAILS = z.object({ uiDomain: z.string().regex(/^app(-[a-z]{2}\d)?\.hubspot\.com$/) });

export interface UiDomain {
  /** The domain known now (the fallback until an answer came). */
  current(): string;
  /** Asks once (or again after a failure's wait); resolves when known or after a short wait, never rejects. */
  ready(): Promise<void>;
}

export function uiDomainOf(calls: Pick<HubSpotCalls, 'call' | 'accountDetails'>, now = Date.now): UiDomain {
  let domain = DEFAULT_UI_DOMAIN;
  let asked: Promise<void> | undefined;
  let failedAt: number | undefined;
  const ask = async (): Promise<void> => {
    try {
      const { data } = await calls.call('accountInfo.details.get', calls.accountDetails);
      const parsed = DETAILS.safeParse(data);
      if (parsed.success) {
        domain = parsed.data.uiDomain;
        return;
      }
    } catch {
      // Refused or unreachable: the fallback stands (the call reported it, as every call does).
    }
    failedAt = now();
  };
  return {
    current: () => domain,
    ready: () => {
      if (failedAt !== undefined && now() - failedAt >= RETRY_AFTER_MS) {
        failedAt = undefined;
        asked = undefined;
      }
      asked ??= ask();
      let timer: NodeJS.Timeout | undefined;
      const wait = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, WAIT_MS);
        timer.unref();
      });
      return Promise.race([asked, wait]).finally(() => clearTimeout(timer));
    },
  };
}
