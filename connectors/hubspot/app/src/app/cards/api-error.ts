// How a refused or failed request reads to a person: the service's own message when it sent one (a 4xx
// names what to fix), else words for what went wrong — no access, the service down, no answer at all.

export class BuyerIntelApiError extends Error {
  /** The HTTP status; 0 when no answer came back (`hubspot.fetch` failed or timed out). */
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'BuyerIntelApiError';
    this.status = status;
    this.code = code;
  }
}

/** The words for an answer that carries no message of the service's (a proxy's page, an empty body). */
export function failureMessage(status: number): string {
  if (status === 401 || status === 403)
    return `Buyer intel refused this request (HTTP ${status}): ask an admin to check the app's access.`;
  if (status >= 500) return `The buyer intel service is unavailable (HTTP ${status}); try again in a minute.`;
  return `Buyer intel request failed (HTTP ${status})`;
}

/** `hubspot.fetch` rejected: the service did not answer (down, unreachable, or slower than the timeout). */
export const unreachable = (): BuyerIntelApiError =>
  new BuyerIntelApiError(0, 'unreachable', 'The buyer intel service did not answer; try again in a minute.');
