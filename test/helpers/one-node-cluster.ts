// A one-node Redis Cluster of a test's own: a cluster-enabled redis-server, a child of the test, up in
// a fraction of a second where privateCluster (private-cluster.ts: 3 masters and their replicas) takes
// seconds. Enough where one node will do: "is this a cluster?", or the node's slot coverage. Its slots
// are the test's to assign (`cluster addslotsrange 0 16383`): until then its cluster_state is fail.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually } from './poll.ts';
import { freePort } from './ports.ts';
import { clusterNodeArgs } from './private-cluster.ts';

const run = promisify(execFile);

export interface OneNodeCluster {
  port: number;
  /** `redis-cli -p <port> <args>`, its output trimmed. */
  cli(...args: string[]): Promise<string>;
  /** SIGKILL, and its directory removed. */
  remove(): void;
}

export async function oneNodeCluster(): Promise<OneNodeCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'bis-one-node-cluster-'));
  // The node also listens on port + 10000 (the cluster bus), which must stay a valid port.
  let port: number;
  do port = await freePort();
  while (port + 10_000 > 65_535);
  const node: ChildProcess = spawn(
    'redis-server',
    [...clusterNodeArgs(port, dir), '--cluster-announce-ip', '127.0.0.1'],
    { stdio: 'ignore' },
  );
  const cli = async (...args: string[]) =>
    (await run('redis-cli', ['-p', String(port), ...args], { timeout: 10_000 })).stdout.trim();
  const remove = () => {
    node.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await eventually(async () => (await cli('ping')) === 'PONG', 'the node answers', { timeoutMs: 20_000 });
  } catch (err) {
    remove();
    throw err;
  }
  return { port, cli, remove };
}
