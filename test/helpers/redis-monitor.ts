// Redis MONITOR read from a plain socket. ioredis's monitor() can throw "Command queue state error"
// (an uncaught exception) when monitor lines arrive in the same packet as MONITOR's +OK — which happens
// when other test files keep the server busy (redis/ioredis#1981 and older reports of the same).
import { once } from 'node:events';
import { connect } from 'node:net';

export interface MonitorLine {
  /** `lua` for commands a script ran, else the client's address. */
  source: string;
  /** The command and its arguments, as MONITOR quotes them (escapes left as they are). */
  args: string[];
}

const LINE = /^\+\d+\.\d+ \[\d+ ([^\]]+)\] (.*)$/;
const ARG = /"((?:[^"\\]|\\.)*)"/g;
const resp = (args: string[]) =>
  `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join('')}`;

/** Starts monitoring; resolves once Redis confirmed (every command after that is reported). */
export async function monitorRedis(
  url: string,
  onLine: (line: MonitorLine) => void,
): Promise<{ close(): void }> {
  const { hostname, port, username, password } = new URL(url);
  const socket = connect(Number(port || 6379), hostname || '127.0.0.1');
  await once(socket, 'connect');
  const auth = password
    ? [resp(['AUTH', ...(username ? [username] : []), decodeURIComponent(password)])]
    : [];
  let oks = auth.length + 1;
  let confirmed: () => void = () => {};
  let refused: (err: Error) => void = () => {};
  const ready = new Promise<void>((resolve, reject) => {
    confirmed = resolve;
    refused = reject;
  });
  let buffer = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffer += chunk;
    for (let at = buffer.indexOf('\r\n'); at >= 0; at = buffer.indexOf('\r\n')) {
      const line = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      if (oks > 0) {
        if (line !== '+OK') refused(new Error(`Redis refused MONITOR: ${line}`));
        else if (--oks === 0) confirmed();
        continue;
      }
      const parsed = LINE.exec(line);
      if (parsed)
        onLine({
          source: parsed[1] ?? '',
          args: [...(parsed[2] ?? '').matchAll(ARG)].map((m) => m[1] ?? ''),
        });
    }
  });
  socket.on('error', (err) => refused(err));
  socket.write(auth.join('') + resp(['MONITOR']));
  await ready;
  return { close: () => socket.destroy() };
}
