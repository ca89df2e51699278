// A configuration that cannot start: every problem listed, one per line. Its own module so the CLI's
// failure report needs no schema, connector or SDK to recognise it.
import { IntegrationError } from '../shared/errors.ts';

export class ConfigError extends IntegrationError {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`, { permanent: true });
    this.problems = problems;
  }
}
