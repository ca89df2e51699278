// Web addresses as evidence of who an account is. An organisation's own domain names it more surely
// than its name does: a city's site, a district's site, a university's. What counts as "the same
// domain" follows the public suffix list (`tldts`, the list browsers use, updated with each release):
// www. and other subdomains fold into the registrable domain (austin.utexas.edu is utexas.edu), and
// the suffixes under which US public bodies register their own names are suffixes too
// (springfield.k12.or.us, austin.mn.us, leeds.gov.uk). One US form the list does not know: a state's
// portal (ca.gov, texas.gov, ny.gov) holds many agencies as subdomains (dot.ca.gov,
// education.ca.gov), so there the agency's subdomain is the organisation, not the portal.
import { parse } from 'tldts';
import { findState } from '../buyer-intel/states.ts';
import { memoized } from './memo.ts';

/** Host (lower case, without www.) and path (lower case, no trailing slash) of a URL or a bare domain. */
export function parseWebAddress(input: string | null | undefined): { host: string; path: string } | null {
  const raw = input?.trim();
  return raw ? readWebAddress(raw) : null;
}

const readWebAddress = memoized((raw: string): { host: string; path: string } | null => {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw.replace(/^\/+/, '')}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return null;
  }
  const host = url.hostname
    .toLowerCase()
    .replace(/\.$/, '')
    .replace(/^www\d*\./, '');
  if (!host.includes('.')) return null;
  const path = url.pathname.toLowerCase().replace(/\/+$/, '');
  return { host, path };
});

/** A US state's portal domain: its name or postal code under .gov (texas.gov, ca.gov, dc.gov). */
function statePortal(domainWithoutSuffix: string | null, suffix: string | null): boolean {
  if (suffix !== 'gov' || !domainWithoutSuffix) return false;
  return findState(domainWithoutSuffix)?.country === 'US';
}

/**
 * The domain a registrant owns, by the public suffix list: austintexas.gov for www.austintexas.gov,
 * austin.mn.us for ci.austin.mn.us, springfield.k12.or.us for itself. Falls back to the host itself
 * for what the list cannot place (an IP address, an unknown suffix).
 */
export const registrableDomain = memoized((host: string): string => {
  const parsed = parse(host.toLowerCase(), { allowPrivateDomains: false });
  return parsed.domain ?? host.toLowerCase();
});

/**
 * The domain that stands for one organisation: the registrable domain, except on a state's portal,
 * where it is the agency's subdomain (dot.ca.gov, not ca.gov). dc.gov itself is the District's own.
 */
export const organizationDomain = memoized((host: string): string => {
  const h = host.toLowerCase();
  const parsed = parse(h, { allowPrivateDomains: false });
  if (!parsed.domain) return h;
  if (statePortal(parsed.domainWithoutSuffix, parsed.publicSuffix) && parsed.subdomain) {
    const labels = parsed.subdomain.split('.').filter((l) => l && !/^www\d*$/.test(l));
    const agency = labels[labels.length - 1];
    if (agency) return `${agency}.${parsed.domain}`;
  }
  return parsed.domain;
});

export interface DomainLabel {
  label: string;
  stateCode: string | null;
  k12: boolean;
}

/**
 * What the organisation's domain says of it: its own label ("austinisd" for austinisd.org, "dot" for
 * dot.ca.gov, "broward" for broward.k12.fl.us), the state the domain places it in (CA, FL), and
 * whether the suffix says a school system (k12).
 */
export const domainLabel = memoized((host: string): DomainLabel | null => {
  const parsed = parse(host.toLowerCase(), { allowPrivateDomains: false });
  if (!parsed.domain || !parsed.domainWithoutSuffix) return null;
  const suffix = parsed.publicSuffix ?? '';
  const suffixState = /(?:^|\.)([a-z]{2})\.us$/.exec(suffix)?.[1];
  if (statePortal(parsed.domainWithoutSuffix, parsed.publicSuffix)) {
    const labels = (parsed.subdomain ?? '').split('.').filter((l) => l && !/^www\d*$/.test(l));
    const agency = labels[labels.length - 1];
    const state = findState(parsed.domainWithoutSuffix);
    if (agency) return { label: agency, stateCode: state?.code ?? null, k12: false };
  }
  const state = suffixState ? findState(suffixState) : undefined;
  return {
    label: parsed.domainWithoutSuffix,
    stateCode: state?.country === 'US' ? state.code : null,
    k12: /(?:^|\.)k12\./.test(suffix),
  };
});

/** Whether a CRM name is a bare domain ("austintexas.gov"): HubSpot names companies after their domain. */
export function isBareDomain(name: string): boolean {
  const t = name.trim();
  if (!/^(?:https?:\/\/)?(?:[a-z0-9-]+\.)+[a-z]{2,}\/?$/i.test(t)) return false;
  return parse(t).isIcann === true && !!parse(t).domain;
}

export const FREE_MAIL: ReadonlySet<string> = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'hotmail.com',
  'outlook.com',
  'live.com',
  'msn.com',
  'aol.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'proton.me',
  'protonmail.com',
  'comcast.net',
  'att.net',
  'verizon.net',
  'mail.com',
  'gmx.com',
  'yandex.com',
  'zoho.com',
]);
