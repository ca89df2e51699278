// The load generator of the ingest benchmark, in its own process so that autocannon does not share
// the event loop (or the core) of the server it measures. The parent sends one autocannon options
// object per message and gets the result back.
import autocannon from 'autocannon';

if (!process.send) {
  console.error('bench/load-process.ts is started by bench/ingest.ts (fork)');
  process.exit(2);
}

process.on('message', async (message: { type: 'run'; options: autocannon.Options } | { type: 'exit' }) => {
  if (message.type === 'exit') {
    process.disconnect?.();
    return;
  }
  const result = await autocannon(message.options);
  process.send?.({ type: 'result', result });
});
process.send({ type: 'ready' });
