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
  // The built package runs on the Node that starts it. Said here in one line, not by an `engines`
  // field: npm checks that against the Node npm itself runs on, so in a clone (whose npm scripts and
  // npx run the bundled Node 24) it printed ten lines of EBADENGINE on npx's first call, for nothing.
  if (Number(process.versions.node.split('.')[0]) < 24) {
    process.stderr.write(`buyer-intel-sync needs Node ≥ 24; this is Node ${process.versions.node}\n`);
    process.exit(1);
  }
  await import(new URL('../dist/src/cli.js', import.meta.url).href);
}
