// The zod pieces every configuration section is built from (the core's and each CRM's), so a value
// is read the same way wherever it is declared. Messages never echo a value: it may be a secret.
import { z } from 'zod';

/** A whole number within bounds, from its string form; `fallback` when unset. */
export const int = (min: number, max: number, fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? fallback);

export const ratio = (fallback: number) =>
  z
    .string()
    .trim()
    .regex(/^(0(\.\d+)?|1(\.0+)?)$/, 'must be a number from 0 to 1')
    .transform(Number)
    .optional()
    .transform((v) => v ?? fallback);

export const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

export const secret = z.string().trim().min(1, 'is required');

/** The items of a comma-separated list, trimmed, empties dropped. */
export const splitList = (v: string | undefined): string[] =>
  (v ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter(Boolean);

/** A comma-separated list of keys, each checked by `valid`; a message never echoes a key. */
export const checkedList = (valid: (key: string) => boolean, message: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const keys = splitList(v);
      if (!keys.every(valid)) ctx.addIssue({ code: 'custom', message });
      return keys;
    });

export const secretList = (minLength: number, message: string) =>
  checkedList((k) => k.length >= minLength, message);

/** A comma-separated list drawn from `allowed`. */
export const enumList = <T extends string>(allowed: readonly T[]) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const items = splitList(v);
      const bad = items.filter((i) => !(allowed as readonly string[]).includes(i));
      if (bad.length)
        ctx.addIssue({
          code: 'custom',
          message: `unknown value(s) ${bad.join(', ')}; allowed: ${allowed.join(', ')}`,
        });
      return items as T[];
    });

/** Which of `names` a configuration leaves unset. */
export const missing = (vars: Record<string, unknown>, names: readonly string[]): string[] =>
  names.filter((n) => vars[n] === undefined);
