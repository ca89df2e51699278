// Who ran a CLI command, for the record of decisions and runs: the login name, which a shell without
// $USER (cron, a container) still has from the operating system.
import { userInfo } from 'node:os';

export function operatorName(): string {
  let login = process.env.USER;
  if (!login) {
    try {
      login = userInfo().username;
    } catch {
      // No passwd entry for this uid (some containers): the record says so.
    }
  }
  return `cli (${login || 'unknown'})`;
}
