// Commands sent in one turn of the event loop leave in one socket write. ioredis writes each command
// not in a pipeline to the socket at once, and on a loopback or a VM's network a write costs a system
// call that runs the receiving side's TCP path too: a worker's chunk sends dozens of commands in the
// same turn (locks, budgets, cache reads, BullMQ's own). Their writes were a tenth of its CPU, most of
// it for the bytes (cached answers), which joining leaves as they are. Corking the socket until the
// turn's check phase (setImmediate) keeps every command and its order as it was; only the writes are
// joined, those of every callback the turn ran (Redis replies, HTTP answers, timers) included. Released
// at the next tick instead, as node-redis does, each callback wrote apart: 20,600 writes for 3,000
// accounts of the bench against 14,700 (strace -c). ioredis' own auto-pipelining does not fit: it runs
// one pipeline at a time and breaks BullMQ's scripts defined after its first command (ioredis #1931).
import type { Duplex } from 'node:stream';
import { Cluster, type Redis } from 'ioredis';

const joined = new WeakSet<Duplex>();

function joinWrites(stream: Duplex | undefined): void {
  if (!stream || joined.has(stream)) return;
  joined.add(stream);
  const write = stream.write;
  let corked = false;
  const release = () => {
    corked = false;
    stream.uncork();
  };
  stream.write = function (this: Duplex, ...args: Parameters<Duplex['write']>) {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(release);
    }
    return write.apply(this, args);
  } as Duplex['write'];
}

/** Joins the writes of each turn on every connection the client opens (each node's, on a cluster). */
export function writeTogether(client: Redis): void {
  if ((client as unknown) instanceof Cluster) {
    (client as unknown as Cluster).on('+node', (node: Redis) => writeTogether(node));
    return;
  }
  client.on('connect', () => joinWrites(client.stream as Duplex | undefined));
  if (client.status === 'connect' || client.status === 'ready') joinWrites(client.stream as Duplex);
}
