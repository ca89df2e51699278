// The CRM emulators, one descriptor each: the emulators' counterpart of connectors/registry.ts. A new
// CRM's emulator is one folder under emulators/ and one line in BUILT_IN; the sandbox, the demo,
// sandboxSettings, startTestService, the conformance check and the compose test read the set from here.
import type { EmulatorDescriptor, RunningEmulator } from './descriptor.ts';
import { hubspotEmulator } from './hubspot/index.ts';
import { salesforceEmulator } from './salesforce/index.ts';

/** Each descriptor is typed by its own running emulator; the tools hold them erased and hand each its own. */
export type AnyEmulator = EmulatorDescriptor<RunningEmulator, unknown>;
const erase = <R extends RunningEmulator, E>(d: EmulatorDescriptor<R, E>) => d as unknown as AnyEmulator;

const BUILT_IN = [
  // One line per CRM (and its import above).
  erase(hubspotEmulator),
  erase(salesforceEmulator),
];

/** The emulators of this process: the product's, plus any a test registered (registerEmulator). */
export const EMULATORS: readonly AnyEmulator[] = BUILT_IN;

/**
 * Adds an emulator beside the product's, in this process only: a test's throwaway CRM (with its
 * connector registered through connectors/registry.ts's registerCrm). Never listed to users otherwise.
 * It does not read the connectors' registry: the sandbox loads no connector. Returns its removal.
 */
export function registerEmulator<R extends RunningEmulator, E>(
  descriptor: EmulatorDescriptor<R, E>,
): () => void {
  if (BUILT_IN.some((d) => d.kind === descriptor.kind)) return () => {};
  const erased = erase(descriptor);
  BUILT_IN.push(erased);
  // Test files share their worker's modules: the file takes it off again when it is done (afterAll).
  return () => {
    const at = BUILT_IN.indexOf(erased);
    if (at >= 0) BUILT_IN.splice(at, 1);
  };
}

/** The emulator of `kind`, or undefined when none is registered. */
export const emulatorOf = (kind: string): AnyEmulator | undefined => EMULATORS.find((d) => d.kind === kind);
