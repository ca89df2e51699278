// What one check of `doctor` says: apart from the checks so that each family of checks (redis-mode.ts,
// crm-limits.ts) can name it without importing checks.ts back.
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
  /** Further lines (e.g. every configuration problem). */
  more?: string[];
}
