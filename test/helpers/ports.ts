// A port on which nothing listens right now (for "unreachable" cases and private servers).
import getPort from 'get-port';

export const freePort = (): Promise<number> => getPort({ host: '127.0.0.1' });
