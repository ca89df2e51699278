// Size: one decision in its order (find the id's buyer, check it, say why) and two ways to find the buyer.
// Matching by the ids an account carries, before and instead of its name. An id is certain when it was
// typed right, so:
//  - the buyer it names is matched (confidence 1, `source: 'id'`) unless something contradicts it — the
//    account's other ids, its state, or a confident name match to another buyer: then a person chooses,
//    the id's buyer listed first; an id never loses to a name;
//  - an id that names no buyer is said in the reason, and the name decides, but never into an automatic
//    match that contradicts a person's input: a buyer id the API does not know (somebody meant a buyer
//    and typed it wrong) or a name match whose buyer holds another value of the same id goes to review.
//    A name match whose buyer has no value for that id at the API contradicts nothing and stands.
// Every id is confirmed by the buyer's own attributes before it is trusted. The buyer id is read
// directly (one call). A registry id (NCES, IPEDS, Census) is looked up with the criteria search where
// the provider takes it as a criterion — confirmed, since a provider that ignores an unknown criterion
// answers arbitrary buyers — else among the name search's candidates, one attribute call each, at most
// `maxChecks`. Which criteria the provider takes is learnt once per process, and whether it has the
// criteria search at all with every other caller (criteria-search.ts). An account with no name or web
// address to search by and a registry id no search takes goes to a person, who is told so.
import type { BuyerCriteria, BuyerIntelClient } from '../buyer-intel/client.ts';
import { NotFoundError } from '../buyer-intel/errors.ts';
import type { BuyerField } from '../buyer-intel/fields.ts';
import { findState } from '../buyer-intel/states.ts';
import { failureFacts } from '../shared/errors.ts';
import { CriteriaSearch } from './criteria-search.ts';
import { type AccountId, likelyHolder, parseAccountIds, sameId, shownId } from './ids.ts';
import { normalizeName } from './normalize.ts';
import { domainQuery } from './queries.ts';
import type { AccountForMatching, MatchDecision, ScoredCandidate } from './types.ts';

export type IdMatchClient = Pick<BuyerIntelClient, 'getBuyerAttributesBulk' | 'searchBuyers'> &
  Partial<Pick<BuyerIntelClient, 'searchBuyersByCriteria'>>;

export interface IdMatchOptions {
  /** Attribute calls spent looking for a registry id among the name's candidates. Default 5. */
  maxChecks: number;
  /** Results asked of the name search made to find more candidates. */
  searchLimit: number;
}

/** A buyer as its attributes describe it. */
interface Described {
  id: string;
  name: string;
  stateCode: string | null;
  type: string | null;
  url: string | null;
  data: Partial<Record<BuyerField, unknown>>;
}

type Candidate = Pick<ScoredCandidate, 'buyerId' | 'name' | 'stateCode' | 'type' | 'url'>;

const MAX_LISTED = 5;
/** Attribute calls spent confirming what a criteria search answered. */
const CRITERIA_CHECKS = 3;

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null);
const shown = (c: { name: string; stateCode: string | null }) => `"${c.name}" (${c.stateCode ?? '?'})`;
const idText = (id: AccountId) => `${id.label} ${id.value}`;

/**
 * The provider does not take this criterion, or not in the shape we guess: asking again cannot help.
 * (An operation it does not have at all is criteria-search.ts's to learn.)
 */
function refused(err: unknown): boolean {
  // 400, or a 2xx answer that failed the contract: read from the failure's status, not its class.
  const status = failureFacts(err)?.status;
  return status === 400 || (status !== undefined && status >= 200 && status < 300);
}

/** Failures every other call would meet too: the account's job fails and is retried. */
function fatal(err: unknown): boolean {
  // The token refused (401), not allowed (403), or the provider's rate limit (429).
  const status = failureFacts(err)?.status;
  return status === 401 || status === 403 || status === 429;
}

export class IdMatcher {
  readonly #client: IdMatchClient;
  readonly #options: IdMatchOptions;
  /** Whether the provider has a criteria search at all: shared with the resolver's other searches. */
  readonly #search: CriteriaSearch;
  /** Per criterion: whether the provider's criteria search narrows by it (learnt, for this process). */
  readonly #criteria = new Map<BuyerField, 'narrows' | 'refused'>();

  constructor(
    client: IdMatchClient,
    options: Partial<IdMatchOptions> = {},
    search: CriteriaSearch = new CriteriaSearch(client),
  ) {
    this.#client = client;
    this.#options = { maxChecks: options.maxChecks ?? 5, searchLimit: options.searchLimit ?? 10 };
    this.#search = search;
  }

  /** `byName` is the resolver's decision by name alone; it is made at most once. */
  async resolve(account: AccountForMatching, byName: () => Promise<MatchDecision>): Promise<MatchDecision> {
    const { ids, malformed } = parseAccountIds(account.ids);
    const notUsed = malformed.length ? `. Not used: ${malformed.join('; ')}` : '';
    let named: Promise<MatchDecision> | undefined;
    const name = () => {
      named ??= byName();
      return named;
    };
    if (!ids.length) {
      const decision = await name();
      return { ...decision, explanation: `${decision.explanation}${notUsed}` };
    }
    // Every outcome below weighs the name's view: ask for it while the id is looked up. Its failure is
    // thrown where it is awaited, not as an unhandled rejection meanwhile.
    name().catch(() => undefined);

    const keys = [
      ...new Set<BuyerField>([
        'Name',
        'StateCode',
        'Type',
        'Url',
        ...ids.flatMap((id) => (id.attribute ? [id.attribute] : [])),
      ]),
    ];
    const seen = new Map<string, Promise<Described | null>>();
    const describe = (buyerId: string) => {
      let pending = seen.get(buyerId);
      if (!pending) {
        pending = this.#describe(buyerId, keys);
        seen.set(buyerId, pending);
      }
      return pending;
    };

    // The id's buyer: the buyer id first, then each registry id by criteria, then all of them at once
    // among the name's candidates (one attribute call answers for every id of the account).
    const misses: string[] = [];
    let found: { buyer: Described; by: AccountId } | undefined;
    let unknownBuyerId = false;
    const lookUp: AccountId[] = [];
    for (const id of ids) {
      if (id.kind === 'buyer') {
        const buyer = await describe(id.value);
        if (buyer) {
          found = { buyer, by: id };
          break;
        }
        unknownBuyerId = true;
        misses.push(`the buyer id ${id.value} matches no buyer of the API`);
        continue;
      }
      const byCriteria = await this.#byCriteria(id, describe);
      if (byCriteria) {
        found = { buyer: byCriteria, by: id };
        break;
      }
      if (byCriteria === null) misses.push(`${idText(id)} matched no buyer`);
      else lookUp.push(id);
    }
    let nothingToSearch = false;
    if (!found && lookUp.length) {
      const search = await this.#amongCandidates(account, lookUp, await name(), describe);
      found = search.found;
      nothingToSearch = !found && !search.searched;
      if (nothingToSearch) {
        // No search the documented API offers can take these ids: say so, rather than "matched no buyer".
        misses.push(
          `its ${lookUp.map(idText).join(' and ')} could not be looked up: the account has no name to search by, and this provider has no search by registry id`,
        );
      } else if (!found) {
        const where = search.checked
          ? `checked the ${search.checked} closest by name`
          : 'the name search found none to check';
        for (const id of lookUp) misses.push(`${idText(id)} matched no buyer (${where})`);
      }
    }

    const decision = await name();
    if (found) return this.#withBuyer(account, found, ids, decision, notUsed);
    return this.#withoutBuyer({ ids, misses, unknownBuyerId, nothingToSearch }, decision, describe, notUsed);
  }

  /** The id's buyer is known: matched, unless the other ids, the state or the name's match disagree. */
  #withBuyer(
    account: AccountForMatching,
    found: { buyer: Described; by: AccountId },
    ids: readonly AccountId[],
    decision: MatchDecision,
    notUsed: string,
  ): MatchDecision {
    const { buyer, by } = found;
    const listedAs = decision.candidates.find((c) => c.buyerId === buyer.id);
    const idCandidate: ScoredCandidate = {
      buyerId: buyer.id,
      name: buyer.name,
      stateCode: buyer.stateCode ?? listedAs?.stateCode ?? null,
      type: listedAs?.type ?? buyer.type,
      url: buyer.url ?? listedAs?.url ?? null,
      score: 1,
      signals: [{ signal: 'id', points: 1, detail: idText(by) }],
    };
    const names = `the ${idText(by)} names ${shown(idCandidate)}`;

    const conflicts: string[] = [];
    for (const other of ids) {
      if (other === by || !other.attribute) continue;
      const held = buyer.data[other.attribute];
      if (sameId(other, held) === false)
        conflicts.push(`its ${other.label} is ${shownId(held)}, not ${other.value}`);
    }
    const accountState = account.state?.trim() ? (findState(account.state.trim())?.code ?? null) : null;
    if (accountState && idCandidate.stateCode && idCandidate.stateCode !== accountState)
      conflicts.push(`the account is in ${accountState}`);
    const rival =
      decision.status === 'matched' && decision.buyerId !== buyer.id
        ? decision.candidates.find((c) => c.buyerId === decision.buyerId)
        : undefined;
    if (rival)
      conflicts.push(
        `the name matches ${shown(rival)} with ${rival.score.toFixed(2)}; an id is certain only when it was typed right, so a person chooses`,
      );

    if (!conflicts.length) {
      return {
        status: 'matched',
        buyerId: buyer.id,
        buyerName: buyer.name,
        confidence: 1,
        source: 'id',
        explanation: `Matched ${shown(idCandidate)} by its ${idText(by)}${notUsed}`,
        candidates: [idCandidate],
      };
    }
    const others = decision.candidates.filter((c) => c.buyerId !== buyer.id);
    const candidates = [idCandidate, ...(rival ? [rival] : []), ...others.filter((c) => c !== rival)].slice(
      0,
      MAX_LISTED,
    );
    return {
      status: 'needs_review',
      // How sure the name alone was: the id's certainty is what is in doubt.
      confidence: decision.status === 'no_match' ? 0 : decision.confidence,
      explanation: `Needs review: ${names}, but ${conflicts.join('; and ')}${notUsed}`,
      candidates,
    };
  }

  /**
   * No id named a buyer: the name decides, except into a match that contradicts a person's input.
   * `nothingToSearch`: the account gave nothing to search by, which the name's decision says too.
   */
  async #withoutBuyer(
    lookedUp: {
      ids: readonly AccountId[];
      misses: readonly string[];
      unknownBuyerId: boolean;
      nothingToSearch: boolean;
    },
    decision: MatchDecision,
    describe: (buyerId: string) => Promise<Described | null>,
    notUsed: string,
  ): Promise<MatchDecision> {
    const { ids, misses, unknownBuyerId, nothingToSearch } = lookedUp;
    const missed = misses.join('; ');
    const said = `${missed.charAt(0).toUpperCase()}${missed.slice(1)}`;
    // A person typed an id: never a silent no_match. Whoever finds the buyer fixes the id too.
    if (decision.status === 'no_match')
      return {
        status: 'needs_review',
        confidence: 0,
        explanation: `Needs review: ${missed}; a person typed it, so a person decides.${nothingToSearch ? '' : ` ${decision.explanation}`}${notUsed}`,
        candidates: decision.candidates,
      };
    if (decision.status !== 'matched')
      return { ...decision, explanation: `${said}. ${decision.explanation}${notUsed}` };

    let contradiction: string | undefined;
    if (unknownBuyerId) contradiction = 'a buyer id was typed that the API does not know';
    else {
      const matched = await describe(decision.buyerId);
      for (const id of ids) {
        const held = id.attribute ? matched?.data[id.attribute] : undefined;
        if (sameId(id, held) === false) {
          contradiction = `"${decision.buyerName ?? decision.buyerId}" has ${id.label} ${shownId(held)}`;
          break;
        }
      }
    }
    if (!contradiction) return { ...decision, explanation: `${said}. ${decision.explanation}${notUsed}` };
    return {
      status: 'needs_review',
      confidence: decision.confidence,
      explanation: `Needs review: ${missed}, and ${contradiction}, so the name's match is not taken without a person. ${decision.explanation}${notUsed}`,
      candidates: decision.candidates,
    };
  }

  /** The buyer's name, state, type, web address and the account's id attributes; null for an unknown id. */
  async #describe(buyerId: string, keys: readonly BuyerField[]): Promise<Described | null> {
    try {
      const { buyerData } = await this.#client.getBuyerAttributesBulk(buyerId, keys);
      if (!buyerData) return null;
      return {
        id: buyerId,
        name: text(buyerData.Name) ?? buyerId,
        stateCode: text(buyerData.StateCode),
        type: text(buyerData.Type),
        url: text(buyerData.Url),
        data: buyerData,
      };
    } catch (err) {
      if (err instanceof NotFoundError) return null;
      throw err;
    }
  }

  /**
   * The buyer a criteria search finds for the id, confirmed; null when the provider is known to narrow
   * by it and finds none; undefined when it cannot tell (not offered, refused, or not narrowing).
   */
  async #byCriteria(
    id: AccountId,
    describe: (buyerId: string) => Promise<Described | null>,
  ): Promise<Described | null | undefined> {
    const attribute = id.attribute;
    if (!this.#search.available || !attribute || this.#criteria.get(attribute) === 'refused')
      return undefined;
    let buyers: { id: string }[];
    try {
      const found = await this.#search.search({
        [attribute]: id.value,
        limit: CRITERIA_CHECKS,
      } as BuyerCriteria);
      // No criteria search at all, learnt by this call or one that came back first.
      if (!found) return undefined;
      buyers = found;
    } catch (err) {
      if (fatal(err)) throw err;
      if (refused(err)) this.#criteria.set(attribute, 'refused');
      return undefined;
    }
    if (!buyers.length) return this.#criteria.get(attribute) === 'narrows' ? null : undefined;
    for (const b of buyers.slice(0, CRITERIA_CHECKS)) {
      const buyer = await describe(b.id);
      if (buyer && sameId(id, buyer.data[attribute])) {
        this.#criteria.set(attribute, 'narrows');
        return buyer;
      }
    }
    // Buyers that do not hold the id: the provider ignored the criterion.
    this.#criteria.set(attribute, 'refused');
    return undefined;
  }

  /**
   * Looks for the ids among the name decision's candidates, then among a name search in the ids' state,
   * likely holders first (a district for an NCES id), one attribute call each, at most `maxChecks`. A
   * candidate outside the state an id's digits name cannot hold it and is skipped.
   */
  async #amongCandidates(
    account: AccountForMatching,
    ids: readonly AccountId[],
    decision: MatchDecision,
    describe: (buyerId: string) => Promise<Described | null>,
  ): Promise<{ found?: { buyer: Described; by: AccountId }; checked: number; searched: boolean }> {
    const states = new Set(ids.flatMap((id) => (id.stateCode ? [id.stateCode] : [])));
    const fits = (c: Candidate) => !states.size || (c.stateCode !== null && states.has(c.stateCode));
    const likely = (c: Candidate) => ids.some((id) => likelyHolder(id, c.type));
    const tried = new Set<string>();
    let checked = 0;
    const check = async (list: readonly Candidate[]) => {
      const ordered = [...list.filter(likely), ...list.filter((c) => !likely(c))];
      for (const c of ordered) {
        if (checked >= this.#options.maxChecks) return undefined;
        if (tried.has(c.buyerId) || !fits(c)) continue;
        tried.add(c.buyerId);
        checked++;
        const buyer = await describe(c.buyerId);
        const by = buyer && ids.find((id) => id.attribute && sameId(id, buyer.data[id.attribute]));
        if (buyer && by) return { buyer, by };
      }
      return undefined;
    };
    const fromName = await check(decision.candidates);
    if (fromName) return { found: fromName, checked, searched: true };

    const state =
      states.size === 1
        ? [...states][0]
        : account.state?.trim()
          ? findState(account.state.trim())?.code
          : undefined;
    // Every name the account gives: the name as written, then the words of its web address (an acronym
    // the search does not know is often spelt out there: "utexas.edu").
    const given = account.name?.trim();
    const queries = [
      ...(given ? [normalizeName(given).searchName.trim() || given] : []),
      ...(account.website ? [domainQuery(account.website, state ?? null)?.query ?? ''] : []),
    ].filter((q, i, all) => q && all.indexOf(q) === i);
    for (const query of queries) {
      if (checked >= this.#options.maxChecks) break;
      const { buyers } = await this.#client.searchBuyers({
        buyerName: query,
        limit: this.#options.searchLimit,
        ...(state ? { buyerStateCode: state } : {}),
      });
      const fromSearch = await check(
        buyers.map((b) => ({
          buyerId: b.id,
          name: b.name,
          stateCode: b.stateCode ?? null,
          type: b.type ?? null,
          url: b.url ?? null,
        })),
      );
      if (fromSearch) return { found: fromSearch, checked, searched: true };
    }
    // Nothing was searched: no candidate of the name's decision, and no name, web address or email
    // domain (which the name's searches ask for) to ask by.
    const searched = decision.candidates.length > 0 || queries.length > 0 || !!account.emailDomains?.length;
    return { checked, searched };
  }
}
