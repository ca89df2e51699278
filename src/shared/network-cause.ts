// Why a request got no answer, in words an operator can act on. Node reports it as a code buried in
// the error: undici's `TypeError: fetch failed` keeps it on `cause` (sometimes an AggregateError of one
// error per address tried), node-fetch (jsforce) and ioredis on the error itself. Hand-written because
// no kept library maps these codes to plain words; the table is small and Node's codes are stable.

const TLS_CERT_CODES: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not yet valid',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'self-signed certificate',
  SELF_SIGNED_CERT_IN_CHAIN: 'self-signed certificate in the chain',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'certificate not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'certificate not trusted',
  CERT_UNTRUSTED: 'certificate not trusted',
  CERT_REVOKED: 'the certificate was revoked',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not name this host',
};

const CODES: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found in DNS',
  EAI_AGAIN: 'host not found in DNS (temporary failure)',
  EAI_NONAME: 'host not found in DNS',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  UND_ERR_HEADERS_TIMEOUT: 'timed out waiting for an answer',
  UND_ERR_BODY_TIMEOUT: 'timed out reading the answer',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection reset',
  ECONNABORTED: 'connection aborted',
  UND_ERR_SOCKET: 'connection closed by the other side',
  EHOSTUNREACH: 'host unreachable',
  EHOSTDOWN: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ENETDOWN: 'network unreachable',
};

/** The errors behind `err`: itself, its causes, and the members of AggregateErrors, outermost first. */
function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  const queue: unknown[] = [err];
  while (queue.length && out.length < 10) {
    const e = queue.shift();
    if (e === undefined || e === null || out.includes(e)) continue;
    out.push(e);
    if (e instanceof AggregateError) queue.push(...e.errors);
    if (e instanceof Error) queue.push(e.cause);
  }
  return out;
}

const codeOf = (e: unknown): string | undefined => {
  const code = typeof e === 'object' && e !== null ? (e as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
};

/**
 * The cause of a failure to reach a server, in words ("connection refused", "host not found in DNS",
 * "timed out", "TLS handshake failed: …", "connection reset"), or undefined when `err` is something
 * else (an answer that was an error, a bug).
 */
export function networkCause(err: unknown): string | undefined {
  for (const e of chain(err)) {
    const code = codeOf(e);
    const message = e instanceof Error ? e.message : '';
    if (code && code in TLS_CERT_CODES) return `TLS handshake failed: ${TLS_CERT_CODES[code]}`;
    if (
      code?.startsWith('ERR_SSL_') ||
      code?.startsWith('ERR_TLS_') ||
      /before secure TLS connection|SSL routines/i.test(message)
    )
      return 'TLS handshake failed';
    if (code && code in CODES) return CODES[code];
    if (e instanceof Error && e.name === 'TimeoutError') return 'timed out';
  }
  return undefined;
}

/** `scheme://host[:port]` of a URL: no credentials, path or query (they may carry a token). */
export function endpointOf(url: string | URL): string {
  try {
    const u = new URL(String(url));
    return `${u.protocol}//${u.host}`;
  } catch {
    return '(invalid URL)';
  }
}

/**
 * `"http://127.0.0.1:8080: connection refused"` for a failure to reach `url`, or undefined when `err` is
 * no network failure. Never includes the URL's credentials, path or query.
 */
export function describeNetworkFailure(url: string | URL, err: unknown): string | undefined {
  const cause = networkCause(err);
  return cause === undefined ? undefined : `${endpointOf(url)}: ${cause}`;
}
