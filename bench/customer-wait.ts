// What a customer waits for: a 250,000-account backfill at the provider's default rate, in hours. The
// provider is the bound of a backfill at the service's own settings (10 requests/s, shared by every
// worker: src/buyer-intel/shared-rate.ts), so the wait is the calls the run spends ÷ that rate. The
// calls per account are measured in a backfill window on realistic names (bench/accounts.ts), the
// signals as the run planned them: the org-wide feed's pages (once per hour the run lasts) or one call
// per new buyer. Before (issue 31): 2.49 calls per account → 17.3 h.
import { coreSchema } from '../src/config/env.ts';
import { FEED_REFRESH_MS, type SignalPlan } from '../src/enrich/run-signals.ts';

export const BACKFILL_ACCOUNTS = 250_000;
/** BUYER_INTEL_RATE_PER_SECOND when a deployment sets nothing. */
export const DEFAULT_PROVIDER_RATE = coreSchema.shape.BUYER_INTEL_RATE_PER_SECOND.parse(undefined);
/** Issue 31's measurement with the per-buyer signals: BI calls per account of a backfill. */
export const BEFORE_CALLS_PER_ACCOUNT = 2.49;

export interface CustomerWait {
  accounts: number;
  ratePerSecond: number;
  /** Search, attributes (and per-buyer signals) per account, measured in the window. */
  callsPerAccount: number;
  /** How the run reads signals, and what the feed costs over the whole backfill. */
  signals: SignalPlan['source'];
  feedCalls: number;
  hours: number;
  beforeHours: number;
  /** 1 − hours ÷ beforeHours. */
  shorter: number;
  /** The same accounts with one signals call per new buyer instead of the feed (the feed's share). */
  perBuyerHours: number;
}

const hoursFor = (calls: number, rate: number) => calls / rate / 3600;

export function customerWait(
  measured: {
    /** Every BI call of the window but the feed's, per account. */
    callsPerAccount: number;
    /** New buyers per account of the window: what per-buyer signals would have cost. */
    newBuyersPerAccount: number;
    plan: SignalPlan | undefined;
  },
  rate = DEFAULT_PROVIDER_RATE,
  accounts = BACKFILL_ACCOUNTS,
): CustomerWait {
  const plan = measured.plan;
  const perAccount = measured.callsPerAccount;
  let feedCalls = 0;
  let hours = hoursFor(accounts * perAccount, rate);
  if (plan?.source === 'feed') {
    // The feed is read again each FEED_REFRESH_MS the run lasts (each read makes the run longer).
    const reads = () => Math.max(1, Math.ceil((hours * 3600_000) / FEED_REFRESH_MS));
    for (let i = 0; i < 3; i++) {
      feedCalls = plan.feedCalls * reads();
      hours = hoursFor(accounts * perAccount + feedCalls, rate);
    }
  }
  const beforeHours = hoursFor(accounts * BEFORE_CALLS_PER_ACCOUNT, rate);
  const perBuyer = plan?.source === 'feed' ? perAccount + measured.newBuyersPerAccount : perAccount;
  return {
    accounts,
    ratePerSecond: rate,
    callsPerAccount: Math.round(perAccount * 1000) / 1000,
    signals: plan?.source ?? 'per-buyer',
    feedCalls,
    hours: Math.round(hours * 10) / 10,
    beforeHours: Math.round(beforeHours * 10) / 10,
    shorter: Math.round((1 - hours / beforeHours) * 100) / 100,
    perBuyerHours: Math.round(hoursFor(accounts * perBuyer, rate) * 10) / 10,
  };
}
