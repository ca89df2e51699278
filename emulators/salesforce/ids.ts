// Salesforce record ids: 15 case-sensitive characters (3-char key prefix + 12), and the 18-character
// case-insensitive form the APIs return, whose 3-char suffix encodes which of the 15 characters are
// upper-case: for each 5-char chunk, bit i is set when char i is A–Z, and the 5-bit value indexes
// "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345".
const SUFFIX_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ012345';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const KEY_PREFIXES = {
  Account: '001',
  Task: '00T',
  User: '005',
  Organization: '00D',
  ContentDocument: '069',
  ContentNote: '069',
  ContentVersion: '068',
  ContentDocumentLink: '06A',
  OutboundNotification: '04l',
  OutboundMessageAction: '04k',
  QueryLocator: '01g',
} as const;

export function checksumSuffix(id15: string): string {
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

export function to18(id15: string): string {
  return id15 + checksumSuffix(id15);
}

/** A syntactically valid 15- or 18-char id (18: its suffix must match). */
export function isWellFormedId(id: string): boolean {
  if (!/^[a-zA-Z0-9]{15}(?:[a-zA-Z0-5]{3})?$/.test(id)) return false;
  return id.length === 15 || checksumSuffix(id.slice(0, 15)) === id.slice(15).toUpperCase();
}

/** The canonical 18-char form of a well-formed 15- or 18-char id. */
export function canonicalId(id: string): string {
  return to18(id.slice(0, 15));
}

function base62(n: number, width: number): string {
  let s = '';
  let v = n;
  while (v > 0) {
    s = BASE62.charAt(v % 62) + s;
    v = Math.floor(v / 62);
  }
  return s.padStart(width, '0');
}

/** Issues ids like Salesforce's: prefix + 2-char pod + reserved '0' + 9 base62 chars, as 18 chars. */
export class IdFactory {
  readonly #pod: string;
  #next: number;
  constructor(pod = 'Dn', start = 0x4f3a21) {
    this.#pod = pod;
    this.#next = start;
  }
  next(prefix: string): string {
    this.#next += 1 + (this.#next % 7);
    return to18(`${prefix}${this.#pod}0${base62(this.#next, 9)}`);
  }
}
