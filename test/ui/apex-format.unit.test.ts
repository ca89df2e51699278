// Every Apex class is formatted as prettier-plugin-apex prints it (connectors/salesforce/.prettierrc.json:
// 4 spaces, 120 columns, the plugin's native parser so no Java is needed). `npm run format:apex` rewrites them.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative } from 'node:path';
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { classFiles, FORCE_APP } from '../helpers/apex.ts';

async function formatted(file: string, source: string): Promise<boolean> {
  const options = await prettier.resolveConfig(file, { editorconfig: false });
  if (!options?.plugins?.length) throw new Error(`no prettier config with the Apex plugin for ${file}`);
  return prettier.check(source, { ...options, filepath: file });
}

describe('Apex formatting (prettier-plugin-apex)', () => {
  it('uses the native parser the plugin ships, not Java', async () => {
    const options = await prettier.resolveConfig(classFiles[0] ?? '', { editorconfig: false });
    expect(options).toMatchObject({ plugins: ['prettier-plugin-apex'], apexStandaloneParser: 'native' });
    // Without its platform's executable the plugin would fall back to Java quietly: make sure it is there.
    if (`${process.platform}-${process.arch}` === 'linux-x64')
      expect(() =>
        createRequire(import.meta.url).resolve('@prettier-apex/apex-ast-serializer-linux-x64/package.json'),
      ).not.toThrow();
  });

  it.each(classFiles.map((f) => [relative(FORCE_APP, f), f]))(
    '%s is formatted (npm run format:apex)',
    async (_name, file) => {
      expect(await formatted(file, readFileSync(file, 'utf8'))).toBe(true);
    },
  );

  it('refuses a class whose indentation was changed by hand', async () => {
    const file = classFiles[0] ?? '';
    const source = readFileSync(file, 'utf8');
    const reindented = source.replace(/\n {4}public /, '\n  public ');
    expect(reindented).not.toBe(source);
    expect(await formatted(file, reindented)).toBe(false);
  });
});
