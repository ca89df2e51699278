// The reasons a person's review decision leaves on the account, in the store and in its CRM field.
/** The reason a rejected (pinned no_match) account carries in the store and in its CRM field. */
export const rejectedReason = (actor: string, reason: string): string =>
  `Rejected by ${actor}: ${reason.trim() || 'not a public buyer'}`;

/** The reason of a confirmed match: who confirmed which buyer, and the score it had as a candidate. */
export const confirmedReason = (actor: string, buyerName: string, score: number | null | undefined): string =>
  `Confirmed by ${actor}: ${buyerName}${typeof score === 'number' ? ` (candidate score ${score.toFixed(2)})` : ''}`;
