// Whether the provider has a criteria search at all, learnt once per process and shared by every caller
// (the web-address search in resolver.ts, the registry-id lookups in by-id.ts). The contract names
// `searchBuyersByCriteria` but shows neither its path nor its shape, and an implementation that serves
// only what is documented answers 404 for the route we guess. That answer says the operation is not
// there — for every account, not a failure of this one — so it is learnt, and the account goes on with
// what the documented operations offer. It must hold for calls already in flight when it is learnt: a
// run's first chunk sends several at once, and each of their 404s is the same news, never an error.
import type { BuyerCriteria, BuyerIntelClient } from '../buyer-intel/client.ts';
import { BuyerIntelError } from '../buyer-intel/errors.ts';
import type { BuyerBrief } from '../buyer-intel/schemas.ts';

export type CriteriaClient = Partial<Pick<BuyerIntelClient, 'searchBuyersByCriteria'>>;

/** No such route (404), no such method on it (405), not implemented (501): the operation is missing. */
const ABSENT_STATUSES = new Set([404, 405, 501]);

export function operationAbsent(err: unknown): boolean {
  return err instanceof BuyerIntelError && ABSENT_STATUSES.has(err.status ?? 0);
}

export class CriteriaSearch {
  readonly #client: CriteriaClient;
  /** `answered`: it has answered once, so a later 404 is about that call's criteria, not the route. */
  #state: 'unknown' | 'answered' | 'absent';

  constructor(client: CriteriaClient) {
    this.#client = client;
    this.#state = client.searchBuyersByCriteria ? 'unknown' : 'absent';
  }

  /** False once the provider is known to have no criteria search (or the client offers none). */
  get available(): boolean {
    return this.#state !== 'absent';
  }

  /**
   * The buyers the provider finds by `criteria`; null when it has no criteria search (learnt now, or
   * by a call that came back first) or answered "not found" to these criteria. Any other failure is
   * thrown, for the caller to weigh (a refused criterion, a rate limit, an outage).
   */
  async search(criteria: BuyerCriteria): Promise<BuyerBrief[] | null> {
    const search = this.#client.searchBuyersByCriteria;
    if (this.#state === 'absent' || !search) return null;
    try {
      const { buyers } = await search.call(this.#client, criteria);
      if (this.#state === 'unknown') this.#state = 'answered';
      return buyers;
    } catch (err) {
      if (!operationAbsent(err)) throw err;
      if (this.#state === 'unknown') this.#state = 'absent';
      return null;
    }
  }
}
