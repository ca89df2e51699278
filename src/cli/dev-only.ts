// `demo` and `sandbox` run the emulators, which are not part of the product nor of its image. These
// stand-ins keep the old command names answering with where to run them, instead of "unknown command".
import { type Command, EXIT_USAGE } from './command.ts';

function devOnly(name: string): Command {
  const line = `the ${name} needs the emulators: run \`npm run ${name}\` from a clone`;
  return {
    name,
    summary: `Dev only, needs the emulators: \`npm run ${name}\` from a clone`,
    usage: line,
    options: {},
    async run() {
      process.stderr.write(`${line}\n`);
      return EXIT_USAGE;
    },
  };
}

export const demoStub = devOnly('demo');
export const sandboxStub = devOnly('sandbox');
