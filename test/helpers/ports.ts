// Ports for tests: one on which nothing listens right now (private servers), and one on which nothing
// ever listens (the "unreachable" cases).
import getPort from 'get-port';

export const freePort = (): Promise<number> => getPort({ host: '127.0.0.1' });

/**
 * A port nothing listens on for as long as the tests run: 2 is privileged, outside the range the system
 * hands out for port 0, and not on fetch's list of ports it refuses to call (1 is). A port found free
 * earlier is not: another file's server may take it minutes later, and the "unreachable" API then
 * answers 404.
 */
export const CLOSED_PORT = 2;
