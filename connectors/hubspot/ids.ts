// HubSpot record ids are unsigned 64-bit numbers that travel as JSON numbers or as text; the text
// "007" and the number 7 name one company, so an id is kept as its canonical decimal text.
const MAX = 2n ** 64n - 1n;

/** The canonical decimal text of a positive id (leading zeros dropped), or undefined when it is none. */
export function hubspotId(raw: string | number): string | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw > 0 ? String(raw) : undefined;
  const text = raw.trim();
  if (!/^\d{1,25}$/.test(text)) return undefined;
  const value = BigInt(text);
  return value > 0n && value <= MAX ? value.toString() : undefined;
}
