// The flags that load bench/send-probe.ts in a child process when BENCH_SEND_PROBE is set. Apart from
// the probe, so that naming them does not load the probe in the bench's own process.
export function sendProbeExecArgv(): string[] {
  return process.env.BENCH_SEND_PROBE
    ? ['--import', new URL('./send-probe.ts', import.meta.url).pathname]
    : [];
}
