// The one constant-time comparison of secrets and signatures. Both sides are hashed first, so the time
// depends on neither their content nor their lengths, and a signature is compared as the exact text
// its sender writes: a lenient decode (base64 without padding, URL-safe letters, junk after it) would
// let one signature pass in many spellings, each a fresh key for a replay memory.
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string | Uint8Array) =>
  (typeof s === 'string' ? createHash('sha256').update(s, 'utf8') : createHash('sha256').update(s)).digest();

/** Whether `given` is `expected`, exactly. */
export function sameText(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** Whether `given` is one of `candidates`; every one is compared, so the time does not tell which. */
export function oneOf(given: string, candidates: readonly string[]): boolean {
  let match = false;
  for (const c of candidates) if (sameText(given, c)) match = true;
  return match;
}

/**
 * Whether `given` is one of `candidates`, as bytes: for a signature its scheme sends as a decoded
 * value (Standard Webhooks' v1), compared as decoded exactly, every candidate in turn.
 */
export function oneOfBytes(given: Uint8Array, candidates: readonly Uint8Array[]): boolean {
  let match = false;
  for (const c of candidates) if (timingSafeEqual(digest(given), digest(c))) match = true;
  return match;
}
