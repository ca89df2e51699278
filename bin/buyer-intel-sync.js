#!/usr/bin/env node
// The `buyer-intel-sync` binary. Plain JavaScript so that any Node can parse it: an older Node, which
// cannot run the TypeScript sources, is told in one line how to run the project's own Node instead of
// dying on ERR_UNKNOWN_FILE_EXTENSION. In a clone it runs src/cli.ts (no build step); in the built
// package, which has no src/, it runs dist/src/cli.js.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli.ts', import.meta.url);

if (existsSync(source)) {
  // `process.features.typescript` is 'strip' or 'transform' where Node runs .ts files (22.18+ by
  // default), false or absent where it cannot.
  if (!process.features.typescript) {
    process.stderr.write(
      'buyer-intel-sync needs Node ≥ 22.18 (the project brings Node 24): run it as `npx buyer-intel-sync …` or `npm run cli -- …` from the project folder\n',
    );
    process.exit(1);
  }
  await import(source.href);
} else {
  await import(new URL('../dist/src/cli.js', import.meta.url).href);
}
