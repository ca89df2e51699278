// A call that fails with the given errors in turn, then answers 'ok', counting its tries: what a
// retry test drives the one executor (src/shared/retry.ts) and the plans built on it with.
export function failing(errors: readonly unknown[]): { call: () => Promise<string>; calls: () => number } {
  let calls = 0;
  return {
    call: async () => {
      const err = errors[calls++];
      if (err) throw err;
      return 'ok';
    },
    calls: () => calls,
  };
}
