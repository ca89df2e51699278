// Listens for the service's HTTP app; resolves with the base URL and a close that lets the requests in
// flight finish (an orchestrator's SIGTERM must not drop a webhook or a refresh half-answered).
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';

export interface Listening {
  url: string;
  server: Server;
  /** Stops accepting, waits for the requests in flight (at most `graceMs`), then ends every connection. */
  close(graceMs?: number): Promise<void>;
}

/**
 * How long a close waits for requests in flight. Below the 30 s most orchestrators give a stopping
 * process (Kubernetes' default terminationGracePeriodSeconds), and above a CRM call's own deadline's
 * usual answer time; a request still running then is cut, as the orchestrator would cut it anyway.
 */
export const HTTP_DRAIN_MS = 25_000;

/** The configuration that chose a listening address: its port's and its host's names. */
export interface AddressSetting {
  port: string;
  host: string;
}

/** The service's own port: PORT and HOST. */
export const SERVICE_SETTING: AddressSetting = { port: 'PORT', host: 'HOST' };

/** METRICS_LISTEN names both (`host:port`). */
export const METRICS_SETTING: AddressSetting = { port: 'METRICS_LISTEN', host: 'METRICS_LISTEN' };

/**
 * What a person should change when the port cannot be had, naming the setting that chose it (Node's
 * own "listen EADDRINUSE: address already in use" names neither); other errors pass unchanged.
 */
export function listenProblem(err: unknown, port: number, host: string, setting: AddressSetting): unknown {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const where = `${host}:${port}`;
  if (code === 'EADDRINUSE')
    return new Error(
      `${where} is already in use by another process: stop it, or set ${setting.port} to a free port`,
    );
  if (code === 'EACCES')
    return new Error(
      `${where} needs privileges this process lacks: set ${setting.port} to a port above 1023`,
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND')
    return new Error(
      `${host} is not an address of this machine: set ${setting.host} to one of its addresses`,
    );
  return err;
}

/**
 * Listens on `host:port` (port 0 = any free port) and resolves with the base URL. `setting` is the
 * configuration that chose the address, for the one line a refusal becomes.
 */
export function listen(
  app: express.Express,
  port = 0,
  host = '127.0.0.1',
  setting?: AddressSetting,
): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    let draining = false;
    // A keep-alive client's next request would find the socket gone: while draining, each answer
    // tells it to close, so it opens a new connection (to another replica) instead.
    // One that was already running when the drain began keeps its socket open after answering: end
    // it then, so close() does not wait on an idle keep-alive socket until the deadline.
    server.on('request', (_req, res) => {
      if (draining) res.setHeader('Connection', 'close');
      res.once('finish', () => {
        if (draining) setImmediate(() => server.closeIdleConnections());
      });
    });
    // Without a setting (the emulators, tests), Node's own error, code and all, is the caller's to word.
    const refused = (err: unknown) => reject(setting ? listenProblem(err, port, host, setting) : err);
    server.once('error', refused);
    server.once('listening', () => {
      server.off('error', refused);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        server,
        close: (graceMs = HTTP_DRAIN_MS) =>
          new Promise<void>((res, rej) => {
            draining = true;
            const force = setTimeout(() => server.closeAllConnections(), graceMs);
            force.unref();
            // close() stops accepting and ends idle sockets; the busy ones end after their answer.
            server.close((err) => {
              clearTimeout(force);
              if (err) rej(err);
              else res();
            });
            server.closeIdleConnections();
          }),
      });
    });
  });
}
