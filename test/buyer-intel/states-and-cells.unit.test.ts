import { describe, expect, it } from 'vitest';
import { bridgeRowSchema, toColumnValue } from '../../src/buyer-intel/schemas.ts';
import { findState, toStateMappingName } from '../../src/buyer-intel/states.ts';

describe('state conversion', () => {
  it.each([
    ['TX', 'Texas'],
    ['tx', 'Texas'],
    ['Texas', 'Texas'],
    ['US-TX', 'Texas'],
    ['New York', 'NewYork'],
    ['NY', 'NewYork'],
    ['district of columbia', 'DistrictOfColumbia'],
    ['CA', 'California'],
    ['CA-ON', 'Ontario'],
    ['NewYork', 'NewYork'],
  ])('%s → %s', (input, mapping) => {
    expect(toStateMappingName(input)).toBe(mapping);
  });

  it('refuses what it cannot place', () => {
    expect(() => toStateMappingName('Texass')).toThrow(/unknown state "Texass"/);
    expect(findState('')).toBeUndefined();
  });
});

describe('row cells', () => {
  it('accepts raw values and wrapped values alike', () => {
    expect(toColumnValue('x')).toEqual({ value: 'x', status: null, processedAt: null });
    expect(toColumnValue({ value: 3, status: 'Processed', processedAt: '2026-01-01T00:00:00Z' })).toEqual({
      value: 3,
      status: 'Processed',
      processedAt: '2026-01-01T00:00:00Z',
    });
    // An object value that merely has a `value` member among others is a raw object.
    expect(toColumnValue({ value: 1, unit: 'USD' })).toEqual({
      value: { value: 1, unit: 'USD' },
      status: null,
      processedAt: null,
    });
  });

  it('parses a row with entity with or without type', () => {
    const base = { rowId: 'r', bridgeId: 'b', columns: { Summary: 'plain' } };
    expect(bridgeRowSchema.parse({ ...base, entity: { id: 'e' } }).entity).toEqual({ id: 'e' });
    expect(bridgeRowSchema.parse({ ...base, entity: { id: 'e', type: 'RFP' } }).entity?.type).toBe('RFP');
    expect(bridgeRowSchema.parse(base).columns.Summary?.value).toBe('plain');
  });
});
