// The account as the resolver's searches see it, read once: its name normalised (a name of type words
// only takes the account's city), its state found in the state field or the name, its website (a
// name that is a bare domain is one).
import { findState, type StateEntry } from '../buyer-intel/states.ts';
import { isBareDomain, parseWebAddress } from './domains.ts';
import { type NormalizedName, normalizeName } from './normalize.ts';
import type { AccountForMatching, MatchDecision } from './resolver.ts';

/** The account as the searches see it: its name read, its state found, its website. */
export interface Prepared {
  account: AccountForMatching;
  given: string | null;
  website: string | null;
  name: NormalizedName | null;
  givenState: string | null;
  state: StateEntry | undefined;
}

/** Reads the account's name and state; an account with neither a name nor a website is no match. */
export function prepare(account: AccountForMatching): Prepared | MatchDecision {
  let given = account.name?.trim() || null;
  let website = account.website?.trim() || null;
  // HubSpot names a company after its domain when it knows nothing else: that is a website, not a name.
  if (given && isBareDomain(given)) {
    website ??= given;
    given = null;
  }
  if (!given && !parseWebAddress(website)) {
    return {
      status: 'no_match',
      explanation: 'No match: the account has no name to search by',
      candidates: [],
    };
  }
  let name = given ? normalizeName(given) : null;
  // A name of type words only ("Police Department") takes its place from the account's city.
  const city = account.city?.trim();
  if (name && !name.core.length && city) {
    const withCity = normalizeName(`${city} ${name.searchName}`);
    name = { ...withCity, stateCode: name.stateCode };
  }
  const givenState = account.state?.trim() || null;
  const state: StateEntry | undefined =
    (givenState ? findState(givenState) : undefined) ??
    (name?.stateCode ? findState(name.stateCode) : undefined);
  return { account, given, website, name, givenState, state };
}
