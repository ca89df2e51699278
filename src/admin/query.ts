// Reading the admin pages' query strings and path parameters: an empty form field means "not given",
// a name given twice is refused, and a bad value is a 400 naming it.
import type express from 'express';
import type { z } from 'zod';
import { ActionProblem } from '../review/problem.ts';

export const queryOf = (q: express.Request['query']): Record<string, unknown> => {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (Array.isArray(v)) throw new ActionProblem(400, 'invalid_request', `query ${k}: give it once`);
    if (v !== '') out[k] = v;
  }
  return out;
};

export function valid<T>(schema: z.ZodType<T, unknown>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? ` ${issue.path.join('.')}` : '';
  throw new ActionProblem(400, 'invalid_request', `${what}${where}: ${issue?.message ?? 'invalid'}`);
}
