// Whether the CRM still holds a value we wrote. CRMs hand values back in their own spelling: empty as ""
// or absent, a number as 0.9 or 0.90, a date-time as 2026-03-01T12:00:00.000Z or
// 2026-03-01T12:00:00.000+0000 (Salesforce), line breaks as \r\n or \n. Two values are the same when
// they say the same thing; any other difference is somebody's edit.

const DATE_TIME = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)(Z|[+-]\d{2}:?\d{2})?$/;
const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;

function instant(text: string): number | null {
  const m = DATE_TIME.exec(text);
  if (!m) return null;
  const zone = m[3] === undefined || m[3] === 'Z' ? 'Z' : `${m[3].slice(0, 3)}:${m[3].slice(-2)}`;
  const ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  return Number.isNaN(ms) ? null : ms;
}

export function sameValue(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = a?.replace(/\r\n/g, '\n').trim() ?? '';
  const y = b?.replace(/\r\n/g, '\n').trim() ?? '';
  if (x === y) return true;
  if (x === '' || y === '') return false;
  if (NUMBER.test(x) && NUMBER.test(y)) return Number(x) === Number(y);
  const [s, t] = [instant(x), instant(y)];
  return s !== null && s === t;
}
