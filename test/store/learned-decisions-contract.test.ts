// A learned rule is on the record with the decision that made it, in one transaction: on the embedded
// PGlite and on a real PostgreSQL, a rule that cannot be written takes its decision with it, and each
// rule of a bulk approve names its own decision.
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { NewLearned } from '../../src/store/learned-decisions.ts';
import { batchedLearnedLookup } from '../../src/store/learned-lookup.ts';
import type { Repositories, Store } from '../../src/store/store.ts';
import { describeEachDatabase } from '../helpers/databases.ts';

const rule = (accountId: string, over: Partial<NewLearned> = {}): Omit<NewLearned, 'decisionId'> => ({
  crm: 'hubspot',
  tenant: 'p1',
  accountId,
  accountName: 'HCPSS',
  nameForm: 'hcpss',
  state: 'MD',
  buyerId: 'b-hcpss',
  buyerName: 'Howard County Public School System',
  verdict: 'confirm',
  runId: '1',
  ...over,
});

describeEachDatabase('learned decisions on the record', (variant) => {
  let store: Store;
  let repos: Repositories;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    ({ store, drop } = await variant.fresh());
    await store.migrate();
    repos = await store.open();
  });
  afterAll(async () => {
    await drop?.();
  });

  it('writes the rule with its decision, naming it', async () => {
    const key = { crm: 'hubspot', tenant: 'p1', accountId: 'a1' };
    const id = await repos.decisions.append(
      { ...key, action: 'confirm', buyerId: 'b-hcpss', actor: { kind: 'admin', name: 'ops' }, runId: '1' },
      rule('a1'),
    );
    const [row] = await repos.learned.forAccount(key);
    expect(row).toMatchObject({ verdict: 'confirm', buyer_id: 'b-hcpss', name_form: 'hcpss' });
    expect(row?.decision_id).toBe(id);
    expect((await repos.learned.rulesFor(key, { nameForm: 'hcpss', state: 'MD' })).length).toBe(1);
  });

  it('a rule that cannot be written leaves no decision either', async () => {
    const key = { crm: 'hubspot', tenant: 'p1', accountId: 'a2' };
    await expect(
      repos.decisions.append(
        { ...key, action: 'confirm', buyerId: 'b', actor: { kind: 'admin', name: 'ops' } },
        rule('a2', { verdict: 'maybe' as 'confirm' }),
      ),
    ).rejects.toThrow();
    expect(await repos.decisions.forAccount(key)).toEqual([]);
    expect(await repos.learned.forAccount(key)).toEqual([]);
  });

  it('a bulk approve writes each rule with its own decision, or nothing', async () => {
    const accounts = ['b1', 'b2', 'b3'];
    const ds = accounts.map((accountId) => ({
      crm: 'hubspot',
      tenant: 'p1',
      accountId,
      action: 'approve' as const,
      buyerId: `buyer-${accountId}`,
      actor: { kind: 'admin' as const, name: 'ops' },
      runId: '2',
    }));
    await repos.decisions.appendMany(
      ds,
      accounts.map((a) => (a === 'b2' ? null : rule(a, { buyerId: `buyer-${a}`, nameForm: `form ${a}` }))),
    );
    for (const a of accounts) {
      const key = { crm: 'hubspot', tenant: 'p1', accountId: a };
      const [decision] = await repos.decisions.forAccount(key);
      const rows = await repos.learned.forAccount(key);
      expect(rows.map((r) => [r.decision_id, r.buyer_id])).toEqual(
        a === 'b2' ? [] : [[decision?.id, `buyer-${a}`]],
      );
    }
    const failing = ['c1', 'c2'];
    await expect(
      repos.decisions.appendMany(
        failing.map((accountId) => ({ ...ds[0], accountId }) as (typeof ds)[number]),
        failing.map((a) => rule(a, { verdict: a === 'c2' ? ('maybe' as 'confirm') : 'confirm' })),
      ),
    ).rejects.toThrow();
    for (const a of failing)
      expect(await repos.decisions.forAccount({ crm: 'hubspot', tenant: 'p1', accountId: a })).toEqual([]);
  });

  it("a chunk's accounts asking together get each their own form's rules, per tenant, in one statement per tenant", async () => {
    const at = (tenant: string, accountId: string, over: Partial<NewLearned>) =>
      repos.decisions.append(
        {
          crm: 'hubspot',
          tenant,
          accountId,
          action: 'confirm',
          buyerId: 'x',
          actor: { kind: 'admin', name: 'ops' },
        },
        rule(accountId, { tenant, runId: null, ...over }),
      );
    await at('t-a', 'l1', { nameForm: 'springfield', state: 'MO', buyerId: 'b-mo', verdict: 'reject' });
    await at('t-a', 'l2', { nameForm: 'springfield', state: 'IL', buyerId: 'b-il' });
    await at('t-b', 'l3', { nameForm: 'springfield', state: 'MO', buyerId: 'b-other-tenant' });
    let statements = 0;
    const counted = new Proxy(repos.learned, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== 'rulesForMany') return typeof value === 'function' ? value.bind(target) : value;
        return (...args: Parameters<typeof target.rulesForMany>) => {
          statements++;
          return target.rulesForMany(...args);
        };
      },
    });
    const lookup = batchedLearnedLookup(async () => counted);
    const a = { crm: 'hubspot', tenant: 't-a' };
    const b = { crm: 'hubspot', tenant: 't-b' };
    const [mo, il, none, otherTenant] = await Promise.all([
      lookup(a, { nameForm: 'springfield', state: 'MO' }),
      lookup(a, { nameForm: 'springfield', state: 'IL' }),
      lookup(a, { nameForm: 'springfield', state: 'OH' }),
      lookup(b, { nameForm: 'springfield', state: 'MO' }),
    ]);
    expect(mo?.map((r) => [r.verdict, r.buyerId])).toEqual([['reject', 'b-mo']]);
    expect(il?.map((r) => [r.verdict, r.buyerId])).toEqual([['confirm', 'b-il']]);
    expect(none).toEqual([]);
    expect(otherTenant?.map((r) => r.buyerId)).toEqual(['b-other-tenant']);
    expect(statements).toBe(2);
  });
});
