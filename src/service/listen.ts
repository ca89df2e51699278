// Starts an express app and reports its URL. It lives in production because the HTTP roles need it and
// production never imports the emulators; the emulators and tests borrow it from here.
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type express from 'express';

export interface Listening {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/** Listens on `host:port` (port 0 = any free port) and resolves with the base URL. */
export function listen(app: express.Express, port = 0, host = '127.0.0.1'): Promise<Listening> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host);
    server.once('error', reject);
    server.once('listening', () => {
      server.off('error', reject);
      const address = server.address() as AddressInfo;
      const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({
        url: `http://${shownHost}:${address.port}`,
        server,
        close: () =>
          new Promise<void>((res, rej) => {
            server.close((err) => (err ? rej(err) : res()));
            server.closeAllConnections();
          }),
      });
    });
  });
}
