// docs/mapping.md is the user's reference for the mapping file: its example must load, its tables of
// transforms and policies must name exactly what the schema accepts, and its error example must be
// what a person gets from the same mistakes (both problems at once, with line and column).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MappingError, parseMapping } from '../../src/map/load-mapping.ts';
import { DEFAULT_POLICY, TRANSFORMS, WRITE_POLICIES } from '../../src/map/mapping-schema.ts';

const doc = readFileSync('docs/mapping.md', 'utf8');
const block = (lang: string, index = 0): string => {
  const found = [...doc.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))][index]?.[1];
  if (found === undefined) throw new Error(`docs/mapping.md has no ${lang} block ${index}`);
  return found;
};
/** The first column's `code` cells of the table under a heading. */
const tableKeys = (heading: string): string[] => {
  const section = doc.split(`### ${heading}`)[1]?.split('\n## ')[0]?.split('\n### ')[0] ?? '';
  return [...section.matchAll(/^\| `([a-z-]+)`/gm)].map((m) => m[1] ?? '');
};

describe('docs/mapping.md', () => {
  it('its example is a valid mapping, with the default policy where it leaves one out', () => {
    const mapping = parseMapping(block('yaml'), 'mapping.yaml');
    expect(mapping.fields.map((f) => [f.attribute, f.property, f.policy])).toEqual([
      ['Type', 'buyer_intel_type', 'overwrite'],
      ['Population', 'buyer_intel_population', DEFAULT_POLICY],
      ['MainPhoneNumber', 'buyer_intel_phone', 'fill-empty'],
    ]);
  });

  it('lists every transform and every policy the schema accepts, and no other', () => {
    expect(tableKeys('Transforms').sort()).toEqual([...TRANSFORMS].sort());
    expect(tableKeys('Write policies').sort()).toEqual([...WRITE_POLICIES].sort());
  });

  it('shows the errors the same two mistakes in its example really give', () => {
    const broken = block('yaml')
      .replace('attribute: Population', 'attribute: Populaton')
      .replace('policy: fill-empty', 'policy: keep');
    let error: unknown;
    try {
      parseMapping(broken, 'mapping.yaml');
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(MappingError);
    expect((error as Error).message).toBe(block('text').trim());
  });
});
