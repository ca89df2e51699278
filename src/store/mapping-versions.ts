// The mapping's versions as saved from the admin console (migrations 0015, 0016): appended, never changed, so
// the list is the record of who changed what, and a revert is one more version equal to an older one.
// A version is saved only as the next number after the one its editor started from: two people saving
// at once cannot overwrite each other's change unseen (the second is told to reload).
import { type Kysely, sql } from 'kysely';
import { type Mapping, validateMapping } from '../map/mapping-schema.ts';
import { type MatchThresholds, matchThresholdsSchema } from '../resolve/thresholds.ts';
import { IntegrationError } from '../shared/errors.ts';
import type { Database } from './schema.ts';

export interface MappingVersion {
  version: number;
  mapping: Mapping;
  /** The match thresholds of this version; null: the configuration's. */
  thresholds: MatchThresholds | null;
  actor: string;
  reason: string | null;
  /** The older version this one restores, when it is a revert. */
  reverts: number | null;
  at: Date;
}

export interface NewMappingVersion {
  mapping: Mapping;
  thresholds?: MatchThresholds | null | undefined;
  actor: string;
  reason?: string | null | undefined;
  reverts?: number | null | undefined;
}

/** Another version was saved since the editor's (`base`): nothing was saved. */
export class MappingVersionConflict extends IntegrationError {
  readonly latest: number;
  constructor(base: number, latest: number) {
    super(`the mapping changed since version ${base} (now version ${latest}); reload and edit it again`, {
      permanent: true,
    });
    this.latest = latest;
  }
}

interface Row {
  version: number;
  document: unknown;
  thresholds: unknown;
  actor: string;
  reason: string | null;
  reverts: number | null;
  created_at: Date | string;
}

function versionOf(r: Row): MappingVersion {
  // Stored documents were validated before they were saved; read back through the same schema, so a
  // row edited by hand in the database fails loudly here rather than writing something odd.
  const doc = typeof r.document === 'string' ? JSON.parse(r.document) : r.document;
  const checked = validateMapping(doc);
  if (!checked.ok)
    throw new IntegrationError(
      `mapping version ${r.version} in the database is invalid: ${checked.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
      { permanent: true },
    );
  const raw = typeof r.thresholds === 'string' ? JSON.parse(r.thresholds) : r.thresholds;
  const thresholds = raw === null || raw === undefined ? null : matchThresholdsSchema.safeParse(raw);
  if (thresholds && !thresholds.success)
    throw new IntegrationError(`mapping version ${r.version} in the database has invalid thresholds`, {
      permanent: true,
    });
  return {
    version: Number(r.version),
    mapping: checked.mapping,
    thresholds: thresholds ? thresholds.data : null,
    actor: r.actor,
    reason: r.reason,
    reverts: r.reverts === null ? null : Number(r.reverts),
    at: new Date(r.created_at),
  };
}

export class MappingVersions {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  /** The newest version's number, 0 when none is stored: the cheap check a worker makes per job. */
  async latestNumber(): Promise<number> {
    const { rows } = await sql<{ v: number | null }>`select max(version) as v from mapping_versions`.execute(
      this.#db,
    );
    return Number(rows[0]?.v ?? 0);
  }

  async get(version: number): Promise<MappingVersion | null> {
    const { rows } = await sql<Row>`select version, document, thresholds, actor, reason, reverts, created_at
      from mapping_versions where version = ${version}`.execute(this.#db);
    return rows[0] ? versionOf(rows[0]) : null;
  }

  async latest(): Promise<MappingVersion | null> {
    const { rows } = await sql<Row>`select version, document, thresholds, actor, reason, reverts, created_at
      from mapping_versions order by version desc limit 1`.execute(this.#db);
    return rows[0] ? versionOf(rows[0]) : null;
  }

  /** Every version, newest first (a mapping changes by hand: tens of versions, not thousands). */
  async list(limit = 200): Promise<MappingVersion[]> {
    const { rows } = await sql<Row>`select version, document, thresholds, actor, reason, reverts, created_at
      from mapping_versions order by version desc limit ${limit}`.execute(this.#db);
    return rows.map(versionOf);
  }

  /**
   * Saves `next` as the version after `base`, the one its editor started from. With none stored yet,
   * `start` (the mapping file) is stored first as version 1, so the file's mapping can be reverted to.
   * Throws MappingVersionConflict when another version was saved since `base`.
   */
  async save(base: number, next: NewMappingVersion, start?: NewMappingVersion): Promise<MappingVersion> {
    return this.#db.transaction().execute(async (trx) => {
      // One saver at a time: the number check and the insert are one step.
      await sql`lock table mapping_versions in share row exclusive mode`.execute(trx);
      const { rows } = await sql<{
        v: number | null;
      }>`select max(version) as v from mapping_versions`.execute(trx);
      let latest = Number(rows[0]?.v ?? 0);
      if (latest === 0 && start) {
        await insert(trx, 1, start);
        latest = 1;
      }
      if (latest !== base) throw new MappingVersionConflict(base, latest);
      const row = await insert(trx, latest + 1, next);
      return versionOf(row);
    });
  }
}

async function insert(db: Kysely<Database>, version: number, v: NewMappingVersion): Promise<Row> {
  const thresholds = v.thresholds ? JSON.stringify(matchThresholdsSchema.parse(v.thresholds)) : null;
  const { rows } =
    await sql<Row>`insert into mapping_versions (version, document, thresholds, actor, reason, reverts)
    values (${version}, ${JSON.stringify(v.mapping)}::json, ${thresholds}::jsonb, ${v.actor}, ${v.reason ?? null}, ${v.reverts ?? null})
    returning version, document, thresholds, actor, reason, reverts, created_at`.execute(db);
  const row = rows[0];
  if (!row) throw new Error('the mapping version was not stored');
  return row;
}
