// Owners v3 (GET /crm/v3/owners, GET /crm/v3/owners/{ownerId}), read-only as in HubSpot: pages of
// `limit` (default 100) behind an opaque `after` cursor with `paging.next.link`; `archived=true` lists the
// deactivated users instead of the active ones; `email` filters to one address. By id, `idProperty=userId`
// looks the owner up by user id; an unknown one is 404.
import { notFound, validationError } from '../errors.ts';
import type { RouteModule } from '../operation.ts';
import { boolParam, intParam, origin, stringParam } from '../request.ts';

const BASE = '/crm/v3/owners';

export const registerOwnerRoutes: RouteModule = (define, ctx) => {
  const { owners } = ctx.store;

  // The SDK asks for the list as `/crm/v3/owners/`; Express's non-strict routing serves both spellings.
  define('get', BASE, 'crm.owners.ownersApi.getPage', (req) => {
    const limit = intParam(req.query, 'limit', { default: 100, max: 500 });
    const after = stringParam(req.query, 'after');
    // The cursor is the position of the page's first owner, base64 as HubSpot's cursors look.
    const start = after === undefined ? 0 : Number(Buffer.from(after, 'base64url').toString('utf8'));
    if (!Number.isInteger(start) || start < 0) throw validationError(`after is no paging cursor: ${after}`);
    const email = stringParam(req.query, 'email');
    const all = owners.list({ archived: boolParam(req.query, 'archived'), ...(email ? { email } : {}) });
    const page = all.slice(start, start + limit);
    const nextStart = start + limit;
    if (nextStart >= all.length) return { results: page };
    const cursor = Buffer.from(String(nextStart), 'utf8').toString('base64url');
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(req.query))
      if (key !== 'after')
        for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
    params.set('after', cursor);
    return {
      results: page,
      paging: { next: { after: cursor, link: `${origin(req)}${BASE}/?${params.toString()}` } },
    };
  });

  define('get', `${BASE}/:ownerId`, 'crm.owners.ownersApi.getById', (req) => {
    const raw = String(req.params.ownerId);
    const byUser = stringParam(req.query, 'idProperty') === 'userId';
    const archived = boolParam(req.query, 'archived');
    const owner = byUser
      ? [...owners.list({ archived: false }), ...owners.list({ archived: true })].find(
          (o) => String(o.userIdIncludingInactive) === raw,
        )
      : owners.get(raw);
    if (!owner || owner.archived !== archived) throw notFound(`No owner found with id ${raw}`);
    return owner;
  });
};
