// /admin/mapping and its actions (/admin/api/mapping*): the page, a preview, a save, a revert, and the
// mapping in force and its versions as JSON. The rules are the mapping console's
// (src/mapping-versions/service.ts); here its refusals become answers: 400 with each problem located
// by row and input (the page puts it beside the input), 404 for an unknown version, 409 when another
// version was saved since the form was opened.
import type express from 'express';
import { z } from 'zod';
import type { Mapping } from '../map/mapping-schema.ts';
import { type MappingEdit, mappingEditSchema } from '../mapping-versions/edit.ts';
import { EditProblem, type MappingConsole } from '../mapping-versions/service.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import type { Store } from '../store/store.ts';
import { type CrmFieldNames, renderMappingPage } from './mapping-page.ts';
import { renderPreview } from './mapping-versions-view.ts';
import { queryOf, valid } from './query.ts';

const pageQuery = z.strictObject({ saved: z.coerce.number().int().min(1).max(1_000_000).optional() });
const revertBody = z.strictObject({
  version: z.number().int().min(1),
  base: z.number().int().min(1),
  reason: z.string().trim().max(500).optional(),
});

export interface MappingRoutesOptions {
  console: MappingConsole;
  source: string;
  /** The configured thresholds (MATCH_ACCEPT_THRESHOLD, MATCH_AMBIGUITY_MARGIN). */
  configured: MatchThresholds;
  /** The mapping file as read at start (the page says when it no longer matches version 1). */
  file?: Mapping | undefined;
  crms: () => CrmFieldNames[];
  /** The field summary's rows (the Last written column): a few rows whatever the number of accounts. */
  store: Pick<Store, 'open'>;
  /** Who a saved version is recorded as. */
  actor: string;
  json: express.RequestHandler;
  body: <T>(schema: z.ZodType<T>, req: express.Request) => T;
}

function refused(res: express.Response, err: unknown): boolean {
  if (!(err instanceof EditProblem)) return false;
  res.status(err.status).json({ error: err.code, message: err.message, problems: err.problems });
  return true;
}

export function addAdminMappingRoutes(router: express.Router, options: MappingRoutesOptions): void {
  const { console: mappings, body } = options;

  router.get('/mapping', async (req, res, next) => {
    try {
      const { saved } = valid(pageQuery, queryOf(req.query), 'query');
      const [active, versions, written] = await Promise.all([
        mappings.active(),
        mappings.versions(),
        options.store.open().then((repos) => repos.fields.all()),
      ]);
      res.type('html').send(
        renderMappingPage({
          active,
          versions,
          crms: options.crms(),
          source: options.source,
          configured: options.configured,
          file: options.file,
          saved,
          written,
        }),
      );
    } catch (err) {
      next(err);
    }
  });
  router.get('/api/mapping', async (_req, res, next) => {
    try {
      const [active, versions] = await Promise.all([mappings.active(), mappings.versions()]);
      res.json({
        version: active.version,
        fromFile: active.fromFile,
        mapping: active.mapping,
        thresholds: active.thresholds,
        versions: versions.map((v) => ({ ...v, mapping: undefined, fields: v.mapping.fields.length })),
      });
    } catch (err) {
      next(err);
    }
  });
  const edit = (req: express.Request): MappingEdit => body(mappingEditSchema, req);
  router.post('/api/mapping/preview', options.json, async (req, res, next) => {
    try {
      const { preview } = await mappings.preview(edit(req));
      const active = await mappings.active();
      res.json({
        changes: preview.changes.length + (preview.thresholds ? 1 : 0),
        differing: preview.rows.filter((r) => r.differs).length,
        html: renderPreview(preview, active.version),
        preview,
      });
    } catch (err) {
      if (!refused(res, err)) next(err);
    }
  });
  router.post('/api/mapping', options.json, async (req, res, next) => {
    try {
      const saved = await mappings.save(edit(req), options.actor);
      res.status(201).json({ version: saved.version, actor: saved.actor, at: saved.at });
    } catch (err) {
      if (!refused(res, err)) next(err);
    }
  });
  router.post('/api/mapping/revert', options.json, async (req, res, next) => {
    try {
      const r = body(revertBody, req);
      const saved = await mappings.revert(r.version, r.base, options.actor, r.reason);
      res.status(201).json({ version: saved.version, reverts: saved.reverts, actor: saved.actor });
    } catch (err) {
      if (!refused(res, err)) next(err);
    }
  });
}
