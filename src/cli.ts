#!/usr/bin/env node
// buyer-intel-sync: one binary, one subcommand per role (src/cli/main.ts, whose `main` resolves with the
// exit code this process exits with). Node's compile cache goes on before anything else loads, so a
// start reuses what it compiled last time, the stripped TypeScript included: a quarter of a start here
// (1.25 → 0.9 s for `--help`). Where the cache directory (in the OS's temp folder) cannot be written,
// Node goes on without it.
import module from 'node:module';

module.enableCompileCache?.();
const { main } = await import('./cli/main.ts');
const code = await main(process.argv.slice(2));
// A failed command has said why and closed what it opened; a retry timer left in a library (jsforce
// retries a refused connection for 15 s) must not keep the process, and its exit code, waiting.
if (code !== 0) process.exit(code);
process.exitCode = code;
