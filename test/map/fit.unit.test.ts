// Values are fitted to the CRM field before the write: text cut to its length (a "truncated" note), numbers
// rounded to the field's decimal places, dates and datetimes in the one form every CRM takes, and a value
// that cannot fit (letters for a number, too many digits, no date, an unknown option) left out with its
// reason. Then, over real HTTP, the Salesforce sandbox with the fields `ensureFields` creates takes what the
// planner fitted, and refuses the same values unfitted.
import { afterAll, describe, expect, it } from 'vitest';
import { createSalesforceConnector } from '../../connectors/salesforce/connector.ts';
import { SALESFORCE_FIELD_LIMITS } from '../../connectors/salesforce/fields.ts';
import type { FieldDefinition } from '../../connectors/types.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { fieldDefinitions } from '../../src/map/field-definitions.ts';
import { fitValue, fitWrites } from '../../src/map/fit.ts';
import type { Mapping } from '../../src/map/mapping-schema.ts';
import { planFieldWrites } from '../../src/map/plan.ts';

const def = (type: FieldDefinition['type'], options?: string[]): FieldDefinition => ({
  name: 'f',
  label: 'F',
  type,
  description: '',
  ...(options ? { options: options.map((value) => ({ value, label: value })) } : {}),
});
const limits = SALESFORCE_FIELD_LIMITS;

describe('fitValue', () => {
  it('cuts text to the field length with a truncated note, and leaves shorter text alone', () => {
    expect(fitValue('x'.repeat(300), def('string'), limits)).toEqual({
      ok: true,
      value: 'x'.repeat(255),
      note: { kind: 'truncated', reason: "300 characters cut to the field's 255." },
    });
    expect(fitValue('short', def('string'), limits)).toEqual({ ok: true, value: 'short' });
    expect(fitValue('y'.repeat(40_000), def('text'), limits)).toMatchObject({
      ok: true,
      note: { kind: 'truncated' },
    });
    expect(
      fitValue('z'.repeat(70_000), def('text'), { stringLength: 65_536, textLength: 65_536 }),
    ).toMatchObject({
      ok: true,
      value: 'z'.repeat(65_536),
    });
  });

  it('rounds a number to the scale, and skips one with too many digits or no number at all', () => {
    expect(fitValue('12.345', def('number'), limits)).toMatchObject({
      ok: true,
      value: '12.35',
      note: { kind: 'rounded' },
    });
    expect(fitValue('12.5', def('number'), limits)).toEqual({ ok: true, value: '12.5' });
    expect(fitValue(' 7 ', def('number'), limits)).toEqual({ ok: true, value: '7' });
    expect(fitValue('1e20', def('number'), limits)).toMatchObject({
      ok: false,
      reason: expect.stringContaining('16'),
    });
    expect(fitValue('lots', def('number'), limits)).toMatchObject({
      ok: false,
      reason: '"lots" is not a number.',
    });
    // HubSpot numbers have no declared precision: kept as they are (trimmed).
    expect(fitValue('12.345', def('number'), { stringLength: 1, textLength: 1 })).toEqual({
      ok: true,
      value: '12.345',
    });
  });

  it('puts dates and datetimes in ISO form and skips impossible ones', () => {
    expect(fitValue('2024-02-29', def('date'), limits)).toEqual({ ok: true, value: '2024-02-29' });
    expect(fitValue('2024-03-01T10:00:00Z', def('date'), limits)).toEqual({ ok: true, value: '2024-03-01' });
    expect(fitValue('2024-02-30', def('date'), limits)).toMatchObject({ ok: false });
    expect(fitValue('2024-01-02T03:04:05+02:00', def('datetime'), limits)).toEqual({
      ok: true,
      value: '2024-01-02T01:04:05.000Z',
    });
    expect(fitValue('yesterday', def('datetime'), limits)).toMatchObject({ ok: false });
  });

  it('skips an option not in the list and a boolean that is neither true nor false', () => {
    expect(fitValue('Gold', def('enumeration', ['Gold']), limits)).toEqual({ ok: true, value: 'Gold' });
    expect(fitValue('Platinum', def('enumeration', ['Gold']), limits)).toEqual({
      ok: false,
      reason: '"Platinum" is not one of the field\'s options.',
    });
    expect(fitValue('TRUE', def('bool'), limits)).toEqual({ ok: true, value: 'true' });
    expect(fitValue('maybe', def('bool'), limits)).toMatchObject({ ok: false });
  });

  it('fitWrites leaves out what cannot fit, notes what changed, and passes fields it has no definition of', () => {
    const defs = new Map([
      ['n', { ...def('number'), name: 'n' }],
      ['s', { ...def('string'), name: 's' }],
    ]);
    const out = fitWrites({ n: 'abc', s: 's'.repeat(256), other: 'as is', cleared: null }, defs, limits);
    expect(out.values).toEqual({ s: 's'.repeat(255), other: 'as is', cleared: null });
    expect(out.notes.map((n) => [n.field, n.kind])).toEqual([
      ['n', 'skipped'],
      ['s', 'truncated'],
    ]);
  });
});

const MAPPING: Mapping = {
  version: 1,
  fields: [
    { attribute: 'AiAdoptionSummary', property: 'buyer_intel_ai_summary', transform: 'text', policy: 'ours' },
    { attribute: 'BudgetAmount', property: 'buyer_intel_budget', transform: 'number', policy: 'ours' },
    { attribute: 'Population', property: 'buyer_intel_population', transform: 'number', policy: 'ours' },
  ],
};

describe('the planner fits values to the CRM fields', () => {
  const attributes = { AiAdoptionSummary: 'a'.repeat(400), BudgetAmount: 1234.567, Population: 1e19 };

  it('writes the fitted values with their notes and skips the one that cannot fit, with a reason', () => {
    const plan = planFieldWrites({ mapping: MAPPING, attributes, current: {}, ledger: {}, limits });
    expect(plan.updates).toEqual({ buyer_intel_ai_summary: 'a'.repeat(255), buyer_intel_budget: '1234.57' });
    const [summary, budget, population] = plan.changes;
    expect(summary?.fit?.kind).toBe('truncated');
    expect(budget?.fit?.kind).toBe('rounded');
    expect(population).toMatchObject({ decision: 'skip-no-value', new: null, fit: { kind: 'skipped' } });
    expect(population?.reason).toMatch(/digits before the point.*left as it is/);
  });

  it('sees the fitted value already in the CRM as unchanged on the next run', () => {
    const current = { buyer_intel_ai_summary: 'a'.repeat(255), buyer_intel_budget: '1234.57' };
    const ledger = { ...current };
    const plan = planFieldWrites({ mapping: MAPPING, attributes, current, ledger, limits });
    expect(plan.changes.slice(0, 2).map((c) => c.decision)).toEqual(['unchanged', 'unchanged']);
    expect(plan.updates).toEqual({});
  });

  describe('over HTTP, against the Salesforce sandbox with the fields setup creates', () => {
    let sf: RunningSalesforceSandbox;
    afterAll(() => sf?.close());

    it('takes the fitted write and refuses the unfitted one', async () => {
      sf = await startSalesforceSandbox();
      const connector = createSalesforceConnector({
        instanceUrl: sf.url,
        loginUrl: sf.url,
        accessToken: sf.accessToken,
        refreshToken: sf.refreshToken,
        clientId: sf.clientId,
        clientSecret: sf.clientSecret,
        apiVersion: '62.0',
        orgId: sf.orgId,
      });
      await connector.ensureFields(fieldDefinitions(MAPPING));
      const account = sf.store.create('Account', { Name: 'Fit County' });
      const unfitted = planFieldWrites({ mapping: MAPPING, attributes, current: {}, ledger: {} });
      const refused = await connector.updateAccounts([{ accountId: account.id, fields: unfitted.updates }]);
      expect(refused[0]).toMatchObject({
        ok: false,
        error: { message: expect.stringContaining('STRING_TOO_LONG') },
      });
      const fitted = planFieldWrites({
        mapping: MAPPING,
        attributes,
        current: {},
        ledger: {},
        limits: connector.fieldLimits,
      });
      const written = await connector.updateAccounts([{ accountId: account.id, fields: fitted.updates }]);
      expect(written).toEqual([{ accountId: account.id, ok: true }]);
      const read = await connector.getAccount(account.id, Object.keys(fitted.updates));
      expect(read.fields.buyer_intel_ai_summary).toBe('a'.repeat(255));
      expect(Number(read.fields.buyer_intel_budget)).toBe(1234.57);
    });
  });
});
