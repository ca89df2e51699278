// `doctor`'s PUBLIC_BASE_URL line. A CRM that signs the full URL it called (HubSpot v3) is checked
// against PUBLIC_BASE_URL with trailing slashes dropped + the request's path as it arrived
// (src/webhooks/receiver.ts, src/api/router.ts); unset, against the scheme (X-Forwarded-Proto, trust
// proxy) and the Host header each request arrives with. Either way a wrong address refuses every signed
// delivery (401), so doctor says which address is in use, and fails the values that can never match.
// What the CRM app itself is set to post to is not read: HubSpot's webhook settings API
// (GET /webhooks/v3/{appId}/settings) needs the app's developer API key, which the service never holds.
import type { CheckResult } from './result.ts';

/** A configured CRM whose signatures cover the URL (its descriptor's `signsUrl`). */
export interface UrlSigner {
  kind: string;
  signsUrl: string;
}

const NAME = 'public base url';
/** The first segments of the service's own routes: a base naming one is a route, not a prefix. */
const ROUTES = /^\/(webhooks|api|oauth|admin)(\/|$)/;

/**
 * The line for PUBLIC_BASE_URL as set (`raw`, untrimmed is fine) and the configured CRMs that sign
 * the URL; `signers` undefined when the configuration is invalid (which CRMs are on is unknown).
 */
export function checkPublicBaseUrl(raw: string | undefined, signers: UrlSigner[] | undefined): CheckResult {
  const value = raw?.trim() || undefined;
  const fail = (detail: string): CheckResult => ({ name: NAME, status: 'fail', detail });
  const example = signers?.[0] ? `/webhooks/${signers[0].kind}` : '/webhooks/<crm>';
  if (value === undefined) {
    if (signers === undefined)
      return { name: NAME, status: 'skip', detail: 'unset; needs a valid configuration to say more' };
    if (!signers.length)
      return {
        name: NAME,
        status: 'pass',
        detail: 'unset: each request’s own address is used (no configured CRM signs the URL it calls)',
      };
    return {
      name: NAME,
      status: 'warn',
      detail: `PUBLIC_BASE_URL is unset: ${signers.map((s) => s.signsUrl).join('; ')}, checked here against the scheme (X-Forwarded-Proto) and Host header each request arrives with, so behind a proxy that changes either every delivery is refused (401): set PUBLIC_BASE_URL to the origin the CRM app posts to, e.g. https://sync.example.com`,
    };
  }

  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  // A value with credentials is not echoed (doctor prints no secret); any other is the operator's own.
  const shown = value.includes('@') ? 'a value with credentials, not shown' : JSON.stringify(value);
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
    return fail(
      `PUBLIC_BASE_URL must be an absolute http(s) URL such as https://sync.example.com, got ${shown}`,
    );
  if (url.username || url.password)
    return fail(`PUBLIC_BASE_URL must not carry a user or password (got ${shown}): set it to ${url.origin}`);
  if (value.includes('?') || value.includes('#'))
    return fail(
      `PUBLIC_BASE_URL has a query or fragment (${shown}): each request's path is added after it, so no signed URL can match; set it to ${url.origin}`,
    );
  const path = url.pathname.replace(/\/+$/, '');
  if (ROUTES.test(path))
    return fail(
      `PUBLIC_BASE_URL names a route of the service (${path}): it is the prefix each request's path is added to (${value.replace(/\/+$/, '')}${example}); set it to ${url.origin}`,
    );
  if (path)
    return {
      name: NAME,
      status: 'warn',
      detail: `PUBLIC_BASE_URL has a path (${path}): signed URLs are checked as ${url.origin}${path}${example}, where the CRM posts only if the proxy strips ${path} before forwarding; otherwise set it to ${url.origin}`,
    };
  return {
    name: NAME,
    status: 'pass',
    detail: `${url.origin}: signed URLs are checked as ${url.origin}${example}…; it must match the target URL set in the CRM app`,
  };
}
