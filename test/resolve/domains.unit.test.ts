// Web addresses as evidence (the public suffix list, state portals, a domain as a name) and the search
// words read from them and from a misspelt place.
import { describe, expect, it } from 'vitest';
import {
  domainLabel,
  isBareDomain,
  organizationDomain,
  registrableDomain,
} from '../../src/resolve/domains.ts';
import { normalizeName } from '../../src/resolve/normalize.ts';
import { domainQuery, initialsQuery, nicknameQuery, typoQuery } from '../../src/resolve/queries.ts';
import { scoreCandidate } from '../../src/resolve/score.ts';
import { DEFAULT_WEIGHTS } from '../../src/resolve/weights.ts';

describe('domains', () => {
  it('the registrable domain follows the public suffix list: k12, <place>.<st>.us, gov.uk', () => {
    expect(registrableDomain('www.austintexas.gov')).toBe('austintexas.gov');
    expect(registrableDomain('austin.utexas.edu')).toBe('utexas.edu');
    expect(registrableDomain('ci.austin.mn.us')).toBe('austin.mn.us');
    expect(registrableDomain('www.broward.k12.fl.us')).toBe('broward.k12.fl.us');
    expect(registrableDomain('council.leeds.gov.uk')).toBe('leeds.gov.uk');
  });

  it('on a state’s portal the agency’s subdomain is the organisation', () => {
    expect(organizationDomain('dot.ca.gov')).toBe('dot.ca.gov');
    expect(organizationDomain('www.dps.texas.gov')).toBe('dps.texas.gov');
    expect(organizationDomain('dc.gov')).toBe('dc.gov');
    expect(organizationDomain('library.austintexas.gov')).toBe('austintexas.gov');
    expect(domainLabel('dot.ca.gov')).toEqual({ label: 'dot', stateCode: 'CA', k12: false });
    expect(domainLabel('broward.k12.fl.us')).toEqual({ label: 'broward', stateCode: 'FL', k12: true });
  });

  it('two agencies of one state portal are two organisations: no shared-domain credit', () => {
    const r = scoreCandidate(
      { name: 'Georgia Department of Education', state: 'GA', website: 'education.ga.gov' },
      {
        name: 'Georgia Department of Transportation',
        stateCode: 'GA',
        type: 'StateAgency',
        url: 'https://dot.ga.gov',
      },
    );
    expect(r.web).toBe('mismatch');
    expect(r.signals.find((s) => s.signal === 'website')?.points).toBe(DEFAULT_WEIGHTS.websiteMismatch);
  });

  it('a name that is a bare domain is a website ("austintexas.gov"), not a name', () => {
    expect(isBareDomain('austintexas.gov')).toBe(true);
    expect(isBareDomain('https://tamu.edu/')).toBe(true);
    expect(isBareDomain('St. Louis')).toBe(false);
    expect(isBareDomain('Austin ISD')).toBe(false);
  });
});

describe('search words', () => {
  it('from a web address: the place it starts with, its kind spelled out, the state taken off', () => {
    expect(domainQuery('austinisd.org', null)?.query).toBe('Austin independent school district');
    expect(domainQuery('https://www.sanantonioisd.org/', 'TX')?.query).toBe(
      'San Antonio independent school district',
    );
    expect(domainQuery('kingcountywa.gov', null)).toEqual({ query: 'king county', stateCode: 'WA' });
    expect(domainQuery('houstontexas.gov', null)).toEqual({ query: 'Houston', stateCode: 'TX' });
    expect(domainQuery('dot.ca.gov', null)?.query).toBe('California department of transportation');
    expect(domainQuery('broward.k12.fl.us', null)?.query).toBe('broward schools');
    expect(domainQuery(null, null)).toBeNull();
  });

  it('a misspelt place written right, from the places of the account’s state', () => {
    expect(typoQuery(normalizeName('City of Sacremento'), 'CA')).toBe('city of Sacramento');
    expect(typoQuery(normalizeName('City of Sacramento'), 'CA')).toBeNull(); // spelt right
    expect(typoQuery(normalizeName('City of Sacremento'), null)).toBeNull(); // no state, no guess
  });

  it('a nickname written out', () => {
    expect(nicknameQuery(normalizeName('Caltrans'), 'CA')).toBe('California Department of Transportation');
    expect(nicknameQuery(normalizeName('City of Austin'), 'TX')).toBeNull();
  });

  it('an initialism of a place and a kind written out, when the state has one clear place', () => {
    expect(initialsQuery(normalizeName('LAUSD'), 'CA')).toBe('Los Angeles unified school district');
    expect(initialsQuery(normalizeName('SAISD'), 'TX')).toBe('San Antonio independent school district');
    expect(initialsQuery(normalizeName('LAPD'), 'CA')).toBe('Los Angeles police department');
    expect(initialsQuery(normalizeName('LAUSD'), null)).toBeNull(); // no state, no guess
    expect(initialsQuery(normalizeName('Los Angeles USD'), 'CA')).toBeNull(); // not an initialism
    expect(initialsQuery(normalizeName('HISD'), 'TX')).toBeNull(); // one letter says too little
  });
});
