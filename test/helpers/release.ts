// What a test file's helpers created and remove after it (databases, directories), and what they
// forget then (a database kept for the file). No imports: test/setup/release.ts loads this before
// every file, so it must cost nothing.

const pending: (() => void | Promise<void>)[] = [];

/** `release` runs after the test file, once: a removal, or a helper forgetting what it kept. */
export function onRelease(release: () => void | Promise<void>): void {
  pending.push(release);
}

/**
 * Runs what the file's helpers registered. Called after each file by test/setup/release.ts, after
 * the file's own hooks closed its services and stores: the files of a worker share a process (neither
 * project isolates them) and so share this module.
 */
export async function releaseTestFile(): Promise<void> {
  await Promise.all(pending.splice(0).map((release) => release()));
}
