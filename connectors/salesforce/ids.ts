// Salesforce ids: 15 case-sensitive characters, or the 18-character form whose last 3 characters are a
// checksum of the case of the first 15 (for each 5-character chunk, bit i set when character i is A–Z,
// indexing "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"). An 18-character id whose suffix does not match is no
// Salesforce id: comparing only the first 15 would take `00D…ZZZ` for the org `00D…` it is not.
const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const SHAPE = /^[a-zA-Z0-9]{15}(?:[A-Z0-5]{3})?$/;

function checksum(id15: string): string {
  let suffix = '';
  for (let chunk = 0; chunk < 3; chunk++) {
    let flags = 0;
    for (let i = 0; i < 5; i++) {
      const c = id15.charAt(chunk * 5 + i);
      if (c >= 'A' && c <= 'Z') flags |= 1 << i;
    }
    suffix += SUFFIX_ALPHABET.charAt(flags);
  }
  return suffix;
}

/**
 * The 18-character form of a 15- or 18-character id, or undefined when `raw` is not one (wrong shape,
 * or an 18-character id whose checksum does not match its first 15 characters).
 */
export function salesforceId18(raw: string): string | undefined {
  if (!SHAPE.test(raw)) return undefined;
  const id18 = raw.slice(0, 15) + checksum(raw.slice(0, 15));
  return raw.length === 18 && raw !== id18 ? undefined : id18;
}

/** A well-formed id with the given key prefix (`00D` an org, `001` an Account…). */
export function isSalesforceId(raw: string, keyPrefix?: string): boolean {
  return salesforceId18(raw) !== undefined && (keyPrefix === undefined || raw.startsWith(keyPrefix));
}

/** The 15-character form of a checked id: orgs are keyed by it (tenants stored before 18 were checked). */
export const id15 = (id: string) => id.slice(0, 15);
