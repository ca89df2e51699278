// Which review actions an account offers, and the checks a form makes before it sends anything (the
// service's own limits, so a person reads the problem before a round trip).
import type { AccountMatch, ResearchEdit } from './buyer-intel-api.ts';

export interface OfferedActions {
  reject: boolean;
  clear: boolean;
  research: boolean;
}

/**
 * Reject is offered on every account that is not already rejected, not only on `needs_review`: an
 * automatic match (`enriched`) can be wrong, and an automatic `no_match` is searched again at the next
 * change, so a person who knows the company is no public buyer pins it either way. A rejected account
 * offers Clear instead. Re-search is always offered: a better name or state is worth trying on any
 * account (on a rejected one it also lifts the rejection, as the service does).
 */
export function offeredActions(account: AccountMatch): OfferedActions {
  return { reject: !account.pinned, clear: account.pinned, research: true };
}

export const REASON_MAX = 500;
export const NAME_MAX = 300;
export const STATE_MAX = 64;

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

/** The reason a rejection is sent with (the service takes 1–500 characters). */
export function checkReason(raw: string): Checked<string> {
  const reason = raw.trim();
  if (!reason) return { ok: false, problem: 'Say why this company is not a public buyer.' };
  if (reason.length > REASON_MAX)
    return { ok: false, problem: `Keep the reason under ${REASON_MAX + 1} characters.` };
  return { ok: true, value: reason };
}

/** A re-search needs a name; a blank state searches with the company's own (the service's rule). */
export function checkResearch(rawName: string, rawState: string): Checked<ResearchEdit> {
  const name = rawName.trim();
  const state = rawState.trim();
  if (!name) return { ok: false, problem: 'Give the name to search for.' };
  if (name.length > NAME_MAX)
    return { ok: false, problem: `Keep the name under ${NAME_MAX + 1} characters.` };
  if (state.length > STATE_MAX)
    return { ok: false, problem: `Keep the state under ${STATE_MAX + 1} characters.` };
  return { ok: true, value: state ? { name, state } : { name } };
}
