// The mapping's versions on PGlite and on a real PostgreSQL: the file is version 1 until a change is
// saved; a save stores the file as version 1 and the change as 2; a save from a stale version is refused
// and stores nothing; a revert is a new version equal to an older one; the active mapping follows the
// newest version, thresholds included, without a restart (a second process sees another's save at its next check).
import { describe, expect, it } from 'vitest';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import type { Mapping } from '../../src/map/mapping-schema.ts';
import { activeMapping } from '../../src/mapping-versions/active.ts';
import { MappingVersionConflict } from '../../src/store/mapping-versions.ts';
import { describeEachDatabase, migratedStore } from '../helpers/databases.ts';

const FILE: Mapping = DEFAULT_MAPPING;
const CONFIGURED = { acceptThreshold: 0.75, ambiguityMargin: 0.1 };
const phoneIndex = FILE.fields.findIndex((f) => f.property === 'buyer_intel_main_phone');

function withPolicy(mapping: Mapping, index: number, policy: Mapping['fields'][number]['policy']): Mapping {
  return { ...mapping, fields: mapping.fields.map((f, i) => (i === index ? { ...f, policy } : f)) };
}

describeEachDatabase('mapping versions', (variant) => {
  const db = migratedStore(variant);

  describe('in order', () => {
    it('has none stored at first, and the active mapping is the file as version 1', async () => {
      expect(await db.repos.mappings.latestNumber()).toBe(0);
      expect(await db.repos.mappings.list()).toEqual([]);
      const active = activeMapping({
        file: FILE,
        thresholds: CONFIGURED,
        versions: async () => db.repos.mappings,
      });
      expect(await active.current()).toEqual({
        version: 1,
        mapping: FILE,
        thresholds: CONFIGURED,
        fromFile: true,
      });
    });

    it('saves a change as version 2, the file as version 1, with who and why', async () => {
      // Two processes: one saves, the other (a worker) only reads.
      let clock = 0;
      const worker = activeMapping({
        file: FILE,
        thresholds: CONFIGURED,
        versions: async () => db.repos.mappings,
        now: () => clock,
      });
      expect((await worker.current()).version).toBe(1);

      const changed = withPolicy(FILE, phoneIndex, 'overwrite');
      const saved = await db.repos.mappings.save(
        1,
        {
          mapping: changed,
          thresholds: { acceptThreshold: 0.8, ambiguityMargin: 0.05 },
          actor: 'admin:ops',
          reason: 'our phone numbers are better',
        },
        { mapping: FILE, thresholds: CONFIGURED, actor: 'mapping file', reason: 'the mapping file' },
      );
      expect(saved).toMatchObject({ version: 2, actor: 'admin:ops', reason: 'our phone numbers are better' });
      expect(saved.mapping.fields[phoneIndex]?.policy).toBe('overwrite');
      const list = await db.repos.mappings.list();
      expect(list.map((v) => [v.version, v.actor, v.reverts])).toEqual([
        [2, 'admin:ops', null],
        [1, 'mapping file', null],
      ]);
      expect(list[1]?.mapping).toEqual(FILE);
      // In the file's order: enumLabels' order is the CRM dropdown's (jsonb would sort the keys).
      const trend = (m: Mapping | undefined) =>
        Object.keys(m?.fields.find((f) => f.attribute === 'PopulationTrend')?.enumLabels ?? {});
      expect(trend(list[1]?.mapping)).toEqual(trend(FILE));
      expect(trend(FILE)[0]).toBe('Very Strongly Decreasing');
      expect(list[1]?.thresholds).toEqual(CONFIGURED);
      expect(list[0]?.thresholds).toEqual({ acceptThreshold: 0.8, ambiguityMargin: 0.05 });

      // Within its check interval the worker keeps what it read; after it, the saved version.
      expect((await worker.current()).version).toBe(1);
      clock += 1_000;
      const seen = await worker.current();
      expect(seen.version).toBe(2);
      expect(seen.fromFile).toBe(false);
      expect(seen.mapping.fields[phoneIndex]?.policy).toBe('overwrite');
      expect(seen.thresholds).toEqual({ acceptThreshold: 0.8, ambiguityMargin: 0.05 });
      expect(worker.latest().version).toBe(2);
    });

    it('refuses a save from a version that is no longer the newest, storing nothing', async () => {
      const stale = db.repos.mappings.save(1, { mapping: FILE, actor: 'admin:other' });
      await expect(stale).rejects.toBeInstanceOf(MappingVersionConflict);
      await expect(stale).rejects.toThrow(/changed since version 1 \(now version 2\)/);
      expect(await db.repos.mappings.latestNumber()).toBe(2);
    });

    it('reverts as a new version equal to the older one, naming it', async () => {
      const first = await db.repos.mappings.get(1);
      if (!first) throw new Error('version 1 missing');
      const reverted = await db.repos.mappings.save(2, {
        mapping: first.mapping,
        thresholds: first.thresholds,
        actor: 'admin:ops',
        reason: 'back to the file',
        reverts: 1,
      });
      expect(reverted).toMatchObject({ version: 3, reverts: 1 });
      expect(reverted.mapping).toEqual(FILE);
      const active = activeMapping({
        file: withPolicy(FILE, 0, 'fill-empty'),
        thresholds: CONFIGURED,
        versions: async () => db.repos.mappings,
      });
      // The stored version wins over the file once one is saved.
      expect(await active.current()).toMatchObject({ version: 3, mapping: FILE, fromFile: false });
    });
  });
});
