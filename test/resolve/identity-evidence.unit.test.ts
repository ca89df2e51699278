// Evidence that names a buyer beyond its name's similarity: its own web address or mail domain, its
// own name saying the account's kind, its parent's words in the account's name, and "U.S." read as
// two initials. Each rule is shown matching where it should and holding back where it must not.
import { describe, expect, it } from 'vitest';
import { findState } from '../../src/buyer-intel/states.ts';
import { decide, type Scored } from '../../src/resolve/decide.ts';
import { normalizeName } from '../../src/resolve/normalize.ts';
import { readCompound } from '../../src/resolve/readings.ts';
import { type ScoringAccount, scoreCandidate } from '../../src/resolve/score.ts';
import type { ScoringBuyer } from '../../src/resolve/weights.ts';

const OPTIONS = { acceptThreshold: 0.75, ambiguityMargin: 0.1 };

function decideFor(account: ScoringAccount & { name: string }, buyers: (ScoringBuyer & { id: string })[]) {
  const scored: Scored[] = buyers
    .map((b, order) => {
      const result = scoreCandidate(account, b);
      const candidate = {
        buyerId: b.id,
        name: b.name,
        stateCode: b.stateCode ?? null,
        type: b.type ?? null,
        url: b.url ?? null,
        score: result.score,
        signals: result.signals,
      };
      return { candidate, result, order };
    })
    .sort((a, b) => b.result.score - a.result.score || a.order - b.order);
  return decide(
    {
      given: account.name,
      name: normalizeName(account.name),
      scored,
      found: buyers.length,
      asked: [`"${account.name}"`],
      state: account.state ? findState(account.state) : undefined,
      contradiction: null,
      mailOnly: false,
    },
    OPTIONS,
  );
}

const airport = {
  id: 'b-airport',
  name: 'Kenton County Airport Board',
  stateCode: 'KY',
  type: 'TransportationAgency',
  url: 'https://www.cvgairport.com',
};
const cincinnati = {
  id: 'b-city',
  name: 'City of Cincinnati',
  stateCode: 'OH',
  type: 'City',
  url: 'https://www.cincinnati-oh.gov',
};

describe("the buyer's own web address", () => {
  const account = {
    name: 'Cincinnati/Northern Kentucky International Airport',
    state: 'OH',
    website: 'cvgairport.com',
  };

  it('matches the buyer whose home page it is, across a state line, when the name shares a word', () => {
    const decision = decideFor(account, [airport, cincinnati]);
    expect(decision.status).toBe('matched');
    if (decision.status !== 'matched') return;
    expect(decision.buyerId).toBe('b-airport');
    expect(decision.confidence).toBeLessThan(0.75);
    expect(decision.explanation).toContain('the website is its home page and no other buyer’s');
  });

  it('is not enough when another candidate is on the same address too', () => {
    const sibling = {
      id: 'b-police',
      name: 'Kenton County Airport Police',
      stateCode: 'KY',
      type: 'PoliceDepartment',
      url: 'https://www.cvgairport.com',
    };
    const decision = decideFor(account, [airport, sibling]);
    expect(decision.status).toBe('needs_review');
  });

  it('is not enough when the name shares no word with the buyer', () => {
    const decision = decideFor(
      { name: 'Tri-State Flight Services', state: 'OH', website: 'cvgairport.com' },
      [airport],
    );
    expect(decision.status).not.toBe('matched');
  });

  it('is not enough against a contradiction: the name says another kind of buyer', () => {
    const decision = decideFor(
      { name: 'Cincinnati Police Department', state: 'OH', website: 'cincinnati-oh.gov' },
      [cincinnati],
    );
    expect(decision.status).toBe('needs_review');
  });

  it('a page deep in the site is not its home page', () => {
    const decision = decideFor(
      { name: 'Cincinnati Parks', state: 'OH', website: 'https://www.cincinnati-oh.gov/parks/' },
      [cincinnati],
    );
    expect(decision.status).not.toBe('matched');
  });
});

describe("the buyer's own name says the account's kind", () => {
  it('a consolidated government typed City is a county by its name: no conflict', () => {
    const r = scoreCandidate(
      { name: 'Macon-Bibb County', state: 'GA' },
      { name: 'Macon-Bibb County Government', stateCode: 'GA', type: 'City' },
    );
    expect(r.typeConflict).toBe(false);
    expect(r.signals.find((s) => s.signal === 'type')?.detail).toContain('its name says county too');
  });

  it('a county against its school district still conflicts', () => {
    const r = scoreCandidate(
      { name: 'Shelby County', state: 'TN' },
      { name: 'Shelby County Schools', stateCode: 'TN', type: 'SchoolDistrict' },
    );
    expect(r.typeConflict).toBe(true);
  });
});

/** The attributes of a Louisville Metro department: no other name, its parent's name. */
const METRO_PARENT = {
  otherNames: [],
  parentName: 'Louisville/Jefferson County Metro Government',
  parentBuyerId: null,
  city: null,
  county: null,
  zip: null,
  emailDomains: [],
};

describe("words of the buyer's parent in the account's name", () => {
  const police = { name: 'Louisville Police Department', stateCode: 'KY', type: 'PoliceDepartment' };
  const account = { name: 'Louisville Metro Police Department', state: 'KY' };

  it('are read as saying whose the body is, once its attributes name the parent', () => {
    const without = scoreCandidate(account, police);
    const withParent = scoreCandidate(account, {
      ...police,
      profile: METRO_PARENT,
    });
    expect(without.nameSimilarity).toBeLessThan(1);
    expect(withParent.nameSimilarity).toBe(1);
    expect(withParent.score).toBeGreaterThanOrEqual(0.75);
    expect(withParent.reasons.join(' ')).toContain('read as its parent');
  });

  it('leave nothing to compare when every word is the parent’s', () => {
    const r = scoreCandidate(
      { name: 'Jefferson County Metro', state: 'KY' },
      { ...police, profile: METRO_PARENT },
    );
    expect(r.signals.some((s) => s.signal === 'parent')).toBe(false);
    expect(r.score).toBeLessThan(0.75);
  });
});

describe('"U.S." gives two initials', () => {
  it('USACE is the U.S. Army Corps of Engineers, and USDA the U.S. Department of Agriculture', () => {
    const corps = normalizeName('U.S. Army Corps of Engineers Seattle District').folded.split(' ');
    expect(readCompound('usace', corps)?.how).toBe('initials');
    const usda = normalizeName('U.S. Department of Agriculture').folded.split(' ');
    expect(readCompound('usda', usda)?.how).toBe('initials');
  });
});

describe('a review below the threshold', () => {
  it("says the score it compared: the search's rank counts in the score shown, not toward a match", () => {
    const buyer = { id: 'b-spr', name: 'City of Springfield', stateCode: 'IL', type: 'City' };
    const account = { name: 'City of Springfield', state: 'IL' };
    const result = scoreCandidate(account, buyer);
    // A weak name that the search ranked first: 0.73 of evidence, 0.03 of rank.
    const ranked = { ...result, score: 0.76, rankPoints: 0.03 };
    const candidate = { buyerId: buyer.id, name: buyer.name, stateCode: 'IL', type: 'City', url: null };
    const decision = decide(
      {
        given: account.name,
        name: normalizeName(account.name),
        scored: [
          { candidate: { ...candidate, score: 0.76, signals: result.signals }, result: ranked, order: 0 },
        ],
        found: 1,
        asked: [`"${account.name}"`],
        state: findState('IL'),
        contradiction: null,
        mailOnly: false,
      },
      OPTIONS,
    );
    expect(decision.status).toBe('needs_review');
    expect(decision.explanation).toContain(
      "scores 0.73 without the search's rank (0.76 with it), below the 0.75 needed",
    );
  });
});
