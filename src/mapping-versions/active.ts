// The mapping and match thresholds in force, as every worker and page reads them: the newest version
// saved from the console, or the mapping file and the configured thresholds (version 1) while none is
// saved. A job asks at its start; the answer is the
// cached document unless the stored version number moved, so a saved change reaches the next job of
// every worker without a restart, at the price of one `max(version)` a second per process.
import type { Mapping } from '../map/mapping-schema.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import { IntegrationError } from '../shared/errors.ts';
import type { MappingVersions } from '../store/mapping-versions.ts';

export interface ActiveVersion {
  /** 1 for the file while nothing is stored; else the stored version's number. */
  version: number;
  mapping: Mapping;
  /** The version's thresholds, or the configuration's where it has none. */
  thresholds: MatchThresholds;
  /** True while the mapping is the file's (nothing saved from the console yet). */
  fromFile: boolean;
}

export interface ActiveMapping {
  /** The mapping in force now (checked against the store at most every `checkEveryMs`). */
  current(): Promise<ActiveVersion>;
  /** The last mapping `current` answered, without asking the store (the file's before the first ask). */
  latest(): ActiveVersion;
  /** Forget the cache: the next `current` asks the store (after this process saved a version). */
  invalidate(): void;
}

export function activeMapping(options: {
  file: Mapping;
  /** The configured thresholds (MATCH_ACCEPT_THRESHOLD, MATCH_AMBIGUITY_MARGIN). */
  thresholds: MatchThresholds;
  versions: () => Promise<Pick<MappingVersions, 'latestNumber' | 'latest'>>;
  /** How long a checked answer is reused; a backfill's jobs share one check. Default 1 s. */
  checkEveryMs?: number;
  now?: () => number;
  onError?: (err: unknown) => void;
}): ActiveMapping {
  const checkEveryMs = options.checkEveryMs ?? 1_000;
  const now = options.now ?? Date.now;
  const fromFile: ActiveVersion = {
    version: 1,
    mapping: options.file,
    thresholds: options.thresholds,
    fromFile: true,
  };
  let known = fromFile;
  let checkedAt = Number.NEGATIVE_INFINITY;
  let inFlight: Promise<ActiveVersion> | undefined;

  const check = async (): Promise<ActiveVersion> => {
    const versions = await options.versions();
    const number = await versions.latestNumber();
    if (number === 0) known = fromFile;
    else if (number !== known.version || known.fromFile) {
      const stored = await versions.latest();
      if (stored)
        known = {
          version: stored.version,
          mapping: stored.mapping,
          thresholds: stored.thresholds ?? options.thresholds,
          fromFile: false,
        };
    }
    checkedAt = now();
    return known;
  };

  return {
    current() {
      if (now() - checkedAt < checkEveryMs) return Promise.resolve(known);
      inFlight ??= check()
        .catch((err: unknown) => {
          // The store unreachable: a job that cannot record its outcome fails anyway and is retried;
          // one that can goes on with the mapping last seen rather than failing on the check alone.
          options.onError?.(err);
          if (Number.isFinite(checkedAt)) return known;
          throw new IntegrationError(
            `could not read the mapping in force from the database: ${(err as Error).message}`,
            { permanent: false, cause: err },
          );
        })
        .finally(() => {
          inFlight = undefined;
        });
      return inFlight;
    },
    latest: () => known,
    invalidate() {
      checkedAt = Number.NEGATIVE_INFINITY;
    },
  };
}
