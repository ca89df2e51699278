// The website and email-domain signals of one buyer against one account (see domains.ts for what "the
// same domain" means). The buyer's own site is strong evidence: its home page more than another page of
// it, another page more than a sibling on the same organisation's domain; two different organisations'
// domains are a little evidence against.
import { FREE_MAIL, organizationDomain, parseWebAddress } from './domains.ts';
import { round3 } from './round.ts';
import type { ScoreSignal, ScoringBuyer, WebEvidence, Weights } from './weights.ts';

export interface WebSignal {
  evidence: WebEvidence;
  signals: ScoreSignal[];
  reason: string | null;
}

const GENERIC_PATH = /^\/(home|index(\.\w+)?|default(\.\w+)?|en|main)?\/?$/i;

export function webSignals(
  account: { website?: string | null; emailDomains?: readonly string[] | null },
  buyer: ScoringBuyer,
  w: Weights,
): WebSignal {
  const found = fromUrl(account, buyer, w);
  if (found.evidence !== 'none' && found.evidence !== 'mismatch') return found;
  return fromEmailDomains(account, buyer.profile?.emailDomains ?? [], w) ?? found;
}

/**
 * The buyer's email domains (from its attributes) against the account's website and email domains: an
 * organisation's mail domain is its own as surely as its web address ("lfucg.com" for a city whose
 * site is another host).
 */
function fromEmailDomains(
  account: { website?: string | null; emailDomains?: readonly string[] | null },
  theirs: readonly string[],
  w: Weights,
): WebSignal | null {
  const orgs = new Set(theirs.map((d) => organizationDomain(d.trim().toLowerCase())).filter(Boolean));
  if (!orgs.size) return null;
  const site = parseWebAddress(account.website);
  const mine = [
    ...(account.emailDomains ?? []).map((d) => d.trim().toLowerCase().replace(/^.*@/, '')),
    ...(site ? [site.host] : []),
  ].filter((d) => d && !FREE_MAIL.has(d));
  const hit = mine.find((d) => orgs.has(organizationDomain(d)));
  if (!hit) return null;
  return {
    evidence: 'email',
    signals: [
      {
        signal: 'email-domain',
        points: w.emailDomain,
        detail: `${hit} is one of the buyer's email domains (${theirs.join(', ')})`,
      },
    ],
    reason: `${hit} is its email domain`,
  };
}

function fromUrl(
  account: { website?: string | null; emailDomains?: readonly string[] | null },
  buyer: ScoringBuyer,
  w: Weights,
): WebSignal {
  const site = parseWebAddress(account.website);
  const page = parseWebAddress(buyer.url);
  if (!page) return { evidence: 'none', signals: [], reason: null };
  const shownPage = `${page.host}${page.path}`;
  const pageOrg = organizationDomain(page.host);

  let evidence: WebEvidence = 'none';
  let website: ScoreSignal | null = null;
  let reason: string | null = null;
  if (site) {
    const siteOrg = organizationDomain(site.host);
    // A page deep in a government's site is a department's ("/departments/sheriff"): the government's
    // own site, but its home page only for a buyer whose address is that page.
    const deep = site.path !== '' && !GENERIC_PATH.test(site.path);
    const home = page.path === '' ? !deep : `${site.path}/`.startsWith(`${page.path}/`);
    if (site.host === page.host && home) {
      evidence = 'home-page';
      website = {
        signal: 'website',
        points: w.website,
        detail: `website ${site.host}${site.path} = buyer url ${shownPage}`,
      };
      reason = `website ${site.host}${site.path}`;
    } else if (site.host === page.host) {
      evidence = 'section';
      website = {
        signal: 'website',
        points: w.websitePartial,
        detail: `website ${site.host}${site.path}: the buyer's url ${shownPage} is another page of the same site`,
      };
      reason = `same website as ${shownPage}`;
    } else if (siteOrg === pageOrg) {
      evidence = 'domain';
      website = {
        signal: 'website',
        points: w.websitePartial,
        detail: `website ${site.host} and buyer url ${page.host} share the domain ${pageOrg}`,
      };
      reason = `same domain ${pageOrg}`;
    } else {
      evidence = 'mismatch';
      website = {
        signal: 'website',
        points: w.websiteMismatch,
        detail: `website ${site.host} ≠ buyer url ${page.host} (domains ${siteOrg} and ${pageOrg})`,
      };
    }
  }
  const signals = website ? [website] : [];
  if (evidence === 'home-page' || evidence === 'section') return { evidence, signals, reason };

  // Email domains: the host itself or a subdomain of it (austin.utexas.edu for utexas.edu) counts fully.
  let email: { evidence: WebEvidence; signal: ScoreSignal; reason: string } | null = null;
  for (const raw of account.emailDomains ?? []) {
    const domain = raw.trim().toLowerCase().replace(/^.*@/, '').replace(/\.$/, '');
    if (!domain || FREE_MAIL.has(domain)) continue;
    if (domain === page.host || domain.endsWith(`.${page.host}`)) {
      email = {
        evidence: 'email',
        signal: {
          signal: 'email-domain',
          points: w.emailDomain,
          detail: `email domain ${domain} ~ buyer url ${page.host}`,
        },
        reason: `email domain ${domain}`,
      };
      break;
    }
    if (!email && organizationDomain(domain) === pageOrg) {
      email = {
        evidence: 'email-domain',
        signal: {
          signal: 'email-domain',
          points: round3(w.emailDomain * 0.6),
          detail: `email domain ${domain} and buyer url ${page.host} share the domain ${pageOrg}`,
        },
        reason: `email domain in ${pageOrg}`,
      };
    }
  }
  if (!email) return { evidence, signals, reason };
  if (evidence === 'domain' && (website?.points ?? 0) >= email.signal.points)
    return { evidence, signals, reason };
  // The email evidence replaces a weaker same-domain website signal; a mismatching website stays.
  const kept = evidence === 'domain' ? [] : signals;
  return { evidence: email.evidence, signals: [...kept, email.signal], reason: email.reason };
}
