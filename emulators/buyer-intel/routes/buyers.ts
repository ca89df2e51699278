import { z } from 'zod';
import {
  BUYER_FIELD_LABELS,
  BUYER_FIELDS,
  type BuyerField,
  isBuyerField,
} from '../../../src/buyer-intel/fields.ts';
import { findState, STATES } from '../../../src/buyer-intel/states.ts';
import type { SandboxBuyer } from '../data/dataset.ts';
import { badRequest, HttpError, notFound } from '../http-error.ts';
import type { OperationContext, RouteModule } from '../operation.ts';
import { arrayParam, stringParam, uuidParam } from '../params.ts';
import { buyerBrief } from '../present.ts';
import { searchByName } from '../search.ts';

const MAX_SEARCH_LIMIT = 100;

/** The server takes the StateMapping *name*; like the real one, it silently ignores a value it does not know. */
const stateByMapping = new Map(STATES.map((s) => [s.mapping, s]));

function buyerOr404(ctx: OperationContext, raw: string | undefined): SandboxBuyer {
  const id = uuidParam(raw, 'buyerId');
  const buyer = ctx.dataset.buyersById.get(id);
  if (!buyer) throw notFound('resource.buyer.not_found', `no buyer with id ${id}`);
  return buyer;
}

function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 10;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < 1)
    throw badRequest('request.parameter.invalid', 'limit must be a positive integer');
  return Math.min(Number(raw), MAX_SEARCH_LIMIT);
}

const criteriaSchema = z
  .object({
    name: z.string().trim().min(1).optional(),
    stateCode: z.string().trim().min(1).optional(),
    city: z.string().trim().min(1).optional(),
    type: z.string().trim().min(1).optional(),
    url: z.string().trim().min(1).optional(),
    emailDomain: z.string().trim().min(1).optional(),
    limit: z.number().int().min(1).max(MAX_SEARCH_LIMIT).optional(),
  })
  .refine((c) => Object.keys(c).some((k) => k !== 'limit'), { message: 'give at least one criterion' });

const hostOf = (url: string | null): string | undefined => {
  if (!url) return undefined;
  try {
    return new URL(/^https?:\/\//i.test(url) ? url : `https://${url}`).hostname
      .replace(/^www\./, '')
      .toLowerCase();
  } catch {
    return undefined;
  }
};

export const registerBuyerRoutes: RouteModule = (define, ctx) => {
  define('get', '/api/external/buyer/quick/search', 'searchBuyers', (req) => {
    const name = stringParam(req.query, 'buyerName');
    if (!name?.trim()) throw badRequest('request.parameter.missing', 'buyerName is required');
    const limit = parseLimit(stringParam(req.query, 'limit'));
    const state = stateByMapping.get(stringParam(req.query, 'buyerStateCode') ?? '');
    const found = searchByName(ctx.dataset, name, state ? (b) => b.stateCode === state.code : undefined);
    return { buyers: found.slice(0, limit).map(buyerBrief) };
  });

  // searchBuyersByCriteria and getBuyerSchema: the contract names them, and neither it nor the published
  // OpenAPI shows a path or a shape (buyer-intelligence-api.md, "Operations named but not specified");
  // the paths here are our client's guess. A provider that implements only what is documented has no
  // such route: with `documentedOnly` they answer the 404 of an unknown route (app.ts), as an independent
  // implementation of the contract does — after the token and the rate limit, which apply to every
  // request (the contract is silent on their order), and counted under the operation for the tests.
  if (ctx.documentedOnly) {
    const noRoute = () => {
      throw notFound('resource.route.not_found', 'no such endpoint');
    };
    define('post', '/api/external/buyer/search', 'searchBuyersByCriteria', noRoute);
    define('get', '/api/external/buyer/schema', 'getBuyerSchema', noRoute);
  } else {
    define('post', '/api/external/buyer/search', 'searchBuyersByCriteria', (req) => {
      const parsed = criteriaSchema.safeParse(req.body ?? {});
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw badRequest('request.body.invalid', `${issue?.path.join('.') || 'body'}: ${issue?.message}`);
      }
      const c = parsed.data;
      const state = c.stateCode ? findState(c.stateCode) : undefined;
      const host = c.url ? hostOf(c.url) : undefined;
      const filter = (b: SandboxBuyer) =>
        (!state || b.stateCode === state.code) &&
        (!c.city || b.city?.toLowerCase() === c.city.toLowerCase()) &&
        (!c.type || b.type.toLowerCase() === c.type.toLowerCase()) &&
        (!host || hostOf(b.url) === host) &&
        (!c.emailDomain || b.emailDomains.includes(c.emailDomain.toLowerCase()));
      const found = c.name ? searchByName(ctx.dataset, c.name, filter) : ctx.dataset.buyers.filter(filter);
      return { buyers: found.slice(0, c.limit ?? 10).map(buyerBrief) };
    });

    define('get', '/api/external/buyer/schema', 'getBuyerSchema', () => ({
      fields: BUYER_FIELDS.map((key) => ({ key, label: BUYER_FIELD_LABELS[key] })),
    }));
  }

  define('get', '/api/external/buyer/:buyerId/attributes', 'getBuyerAttributesBulk', (req) => {
    const buyer = buyerOr404(ctx, req.params.buyerId as string);
    const requested = arrayParam(req.query, 'attribute');
    const unknown = requested?.filter((k) => !isBuyerField(k)) ?? [];
    if (unknown.length) {
      throw badRequest('request.attribute.unknown', `unknown attribute key(s): ${unknown.join(', ')}`);
    }
    const keys = (requested as BuyerField[] | undefined) ?? BUYER_FIELDS;
    const all = ctx.dataset.attributesOf(buyer.id);
    if (!all) throw new HttpError(500, 'server.error', 'attributes unavailable');
    return { buyerId: buyer.id, buyerData: Object.fromEntries(keys.map((k) => [k, all[k] ?? null])) };
  });

  define('get', '/api/external/buyer/:buyerId/attribute/:buyerAttribute', 'getBuyerAttribute', (req) => {
    const buyer = buyerOr404(ctx, req.params.buyerId as string);
    const key = req.params.buyerAttribute as string;
    if (!isBuyerField(key)) throw badRequest('request.attribute.unknown', `unknown attribute key: ${key}`);
    return { buyerData: ctx.dataset.attributesOf(buyer.id)?.[key] ?? null };
  });

  define('get', '/api/external/buyer/:buyerId/summary', 'getBuyerSummary', (req) => {
    const buyer = buyerOr404(ctx, req.params.buyerId as string);
    const rows = [...(ctx.dataset.rowsByBuyer.get(buyer.id) ?? [])].sort((a, b) =>
      b.signalDate.localeCompare(a.signalDate),
    );
    if (!rows.length) {
      throw notFound('resource.buyer.summary.empty', 'no bridge in this organization tracks this buyer');
    }
    const source = (r: (typeof rows)[number]) => ({
      entryId: r.entryId,
      triggerId: r.bridgeId,
      triggerType: ctx.dataset.bridgesById.get(r.bridgeId)?.filterType ?? null,
      triggerName: ctx.dataset.bridgesById.get(r.bridgeId)?.name ?? null,
      entryName: r.entryName,
    });
    const recent = rows.slice(0, 3);
    const hottest = [...rows].sort((a, b) => b.hotness - a.hotness).slice(0, 3);
    const score = Math.round(hottest.reduce((s, r) => s + r.hotness, 0) / hottest.length);
    return {
      buyerId: buyer.id,
      summary: {
        whatsRecent: {
          status: 'Standard',
          intro: `${rows.length} tracked signal(s) for ${buyer.name}.`,
          sections: recent.map((r) => ({
            title: r.name,
            text: `Signal dated ${r.signalDate.slice(0, 10)}.`,
            sources: [source(r)],
          })),
        },
        theBiggerPicture: {
          status: 'Standard',
          sections: hottest.map((r) => ({
            title: r.name,
            text: `Hotness ${r.hotness}.`,
            sources: [source(r)],
          })),
        },
        areasForDeeperDiscovery: { status: 'Fallback', sections: [] },
      },
      score,
      scoreReasoning: `Average hotness of the ${hottest.length} hottest signals.`,
      generatedAt: ctx.dataset.now.toISOString(),
      needsRegeneration: false,
    };
  });
};
