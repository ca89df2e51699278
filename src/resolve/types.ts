// What the resolver takes and gives: the account as matching sees it, a scored candidate, a decision.
// Apart from resolver.ts so the modules it uses (by-id.ts, prepare.ts, decide.ts) can name them without
// importing it back.
import type { ScoreSignal } from './weights.ts';

export interface AccountForMatching {
  id: string;
  name: string | null;
  state: string | null;
  city?: string | null;
  county?: string | null;
  zip?: string | null;
  street?: string | null;
  website: string | null;
  /** The account's own email domain and, where the CRM has them, its contacts'. */
  emailDomains?: string[];
  pinnedBuyerId?: string | null;
  /**
   * Registry ids the account carries, as text (an NCES id keeps its leading zeros): NCES, IPEDS, Census
   * (PID6 or GID) and a buyer id a person typed in a CRM field. They decide before the name (by-id.ts).
   */
  ids?: { nces?: string; ipeds?: string; census?: string; buyer?: string };
}

export interface ScoredCandidate {
  buyerId: string;
  name: string;
  stateCode: string | null;
  type: string | null;
  url: string | null;
  score: number;
  signals: ScoreSignal[];
}

export type MatchDecision =
  | {
      status: 'matched';
      buyerId: string;
      buyerName: string | null;
      confidence: number;
      /** `id`: by an id the account carries (by-id.ts); `pinned`: by our own buyer id field or a confirm. */
      source: 'pinned' | 'search' | 'id';
      explanation: string;
      candidates: ScoredCandidate[];
      /** Matched by what a person's earlier decision taught the tenant (src/resolve/learned.ts). */
      learned?: true;
    }
  | { status: 'needs_review'; confidence: number; explanation: string; candidates: ScoredCandidate[] }
  | { status: 'no_match'; explanation: string; candidates: ScoredCandidate[] };
