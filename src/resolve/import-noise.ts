// What a CRM import or a rep leaves in an account's name that is not the name: a contact or a routing
// line after it ("– Attn: J. Smith", "c/o Purchasing"), a status tag ("(inactive)", "[DUPLICATE]",
// "– DO NOT USE"), a zip or a phone number ("Dayton Public Schools 45402"). Left in, each counts as
// name words and sinks the similarity to the buyer's name. Read off before the name is normalised;
// the zip is kept as evidence (it says where the account is, as the zip field does).
//
// Only what is marked as noise goes: a dash between two names stays ("Indiana University - Purdue
// University Indianapolis"), and a number that is part of a name ("School District 45", "Unit 5")
// stays — a zip is five digits at the very end, after a word that is not a numbering word.

/** Words that open a trailing segment that is about the record, not the organisation. */
const NOTE_OPENERS =
  /^(?:attn\b|attention\b|c\/o\b|care of\b|contact\b|do not use\b|dnu\b|inactive\b|duplicate\b|dupe?\b|old\b|closed\b|archived?\b|test\b|merged\b|see\b|use\b|former(?:ly)?\b|prospect\b|billing\b|purchasing\b|procurement\b|accounts payable\b|ap\b|zz+\b|xx+\b|main branch\b|main office\b|hq\b|headquarters\b)/i;
const SEPARATED = /\s+(?:[-–—|/:;]|\|\|)\s+(.*)$/;
const BRACKETED = /\s*(?:[([{]\s*([^()[\]{}]*)\s*[)\]}]|\*+\s*([^*]*?)\s*\*+)\s*$/;
const ROUTING = /\s*[-–—|,;:]?\s*\b(?:attn\b:?|attention\b:?|c\/o\b)\s*.*$/i;
const PHONE = /\s*[,(]?\s*(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]\d{3}[\s.-]\d{4}\)?\s*$/;
const ZIP = /(?<!\b(?:district|no|number|unit|region|area|route|box|suite|#))\s*,?\s+(\d{5})(?:-\d{4})?\s*$/i;

export interface NameWithoutNoise {
  name: string;
  /** A zip read off the end of the name, if any. */
  zip: string | null;
  /** What was taken off, as written, for the match's explanation. */
  removed: string[];
}

export function withoutImportNoise(input: string): NameWithoutNoise {
  let name = input.trim();
  const removed: string[] = [];
  let zip: string | null = null;
  // Takes what `re` finds at the end off the name, unless it would leave no name: the match, or null.
  const take = (re: RegExp, keep: (m: RegExpExecArray) => boolean = () => true): RegExpExecArray | null => {
    const m = re.exec(name);
    if (!m || m.index === 0 || !keep(m)) return null;
    const rest = name.slice(0, m.index).trim();
    if (!/[\p{L}]{2}/u.test(rest)) return null;
    removed.push(m[0].trim());
    name = rest;
    return m;
  };
  // "ZZ City of Boston", "XX-Harris County": the prefix a CRM admin puts on a retired record.
  const retired = /^(?:zz+|xx+)\b[\s_-]*/i.exec(name);
  if (retired && /[\p{L}]{2}/u.test(name.slice(retired[0].length))) {
    removed.push(retired[0].trim());
    name = name.slice(retired[0].length);
  }
  // Repeat: "Dayton Public Schools 45402 (inactive) - Attn: Purchasing" carries several.
  for (let guard = 0; guard < 6; guard++) {
    const before = name;
    take(ROUTING);
    take(BRACKETED, (m) => NOTE_OPENERS.test(m[1] ?? m[2] ?? ''));
    take(SEPARATED, (m) => NOTE_OPENERS.test(m[1] ?? ''));
    take(PHONE);
    const z = take(ZIP);
    if (z) zip ??= z[1] ?? null;
    if (name === before) break;
  }
  return { name, zip, removed };
}
