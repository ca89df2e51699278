// The reasons a person's review decision leaves on the account, in the store and in its CRM field. Who
// decided comes from a header (the Salesforce user, the HubSpot card's user) or the configuration, and
// a rejection's reason from a person: both are written as plain text (plainText), never markup.
import { plainText } from '../shared/text.ts';

/** The reason a rejected (pinned no_match) account carries in the store and in its CRM field. */
export const rejectedReason = (actor: string, reason: string): string =>
  `Rejected by ${plainText(actor) || 'someone'}: ${plainText(reason) || 'not a public buyer'}`;

/** The reason of a confirmed match: who confirmed which buyer, and the score it had as a candidate. */
export const confirmedReason = (actor: string, buyerName: string, score: number | null | undefined): string =>
  `Confirmed by ${plainText(actor) || 'someone'}: ${plainText(buyerName)}${typeof score === 'number' ? ` (candidate score ${score.toFixed(2)})` : ''}`;

/** The reason of a re-search a person asked for: who, under which name and state, then the resolver's. */
export const researchedReason = (
  actor: string,
  name: string | null | undefined,
  state: string | null | undefined,
  explanation: string,
): string => {
  const place = state ? ` in ${plainText(state)}` : '';
  return `Re-searched by ${plainText(actor) || 'someone'} as "${plainText(name ?? '')}"${place}: ${explanation}`;
};
