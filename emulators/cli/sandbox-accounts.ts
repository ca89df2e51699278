// The accounts `npm run sandbox` puts in each CRM, so the README's examples have something to point
// at: a tidy name, a sloppy one, a county, a name that fits many buyers and a company that is no buyer.
// They are created first, on fresh emulators, whose ids come from seeded counters: the same ids on
// every start (the README quotes them; test/cli/sandbox.unit.test.ts checks that they still exist).
// Each CRM's emulator creates them its own way (EmulatorDescriptor.createAccount, as an import does).
import type { EmulatedAccount } from '../descriptor.ts';

export type SandboxAccount = EmulatedAccount;

export const SANDBOX_ACCOUNTS: SandboxAccount[] = [
  { name: 'City of Austin', state: 'TX', website: 'https://www.austintexas.gov' },
  { name: 'Austin ISD', state: 'TX' },
  { name: 'Travis County', state: 'TX' },
  { name: 'Springfield' },
  { name: 'Zenith Quantum Holdings LLC', state: 'DE' },
];

export interface SeededAccount extends SandboxAccount {
  id: string;
}
