// The answers of pure functions of a string that scoring asks again for every candidate and every
// account: a buyer's web address parsed, its registrable domain, the states a name spells out. A
// bounded Map that starts over when full: cheaper per look than an LRU, and what it forgets is
// computed again. Object answers are frozen, so no caller can change another's.

/** At most this many answers per function. */
const MAX_ANSWERS = 20_000;

export function memoized<R>(compute: (key: string) => R, max = MAX_ANSWERS): (key: string) => R {
  const answers = new Map<string, R>();
  return (key) => {
    let answer = answers.get(key);
    if (answer === undefined && !answers.has(key)) {
      answer = compute(key);
      if (answer && typeof answer === 'object') Object.freeze(answer);
      if (answers.size >= max) answers.clear();
      answers.set(key, answer);
    }
    return answer as R;
  };
}

/** The same for a function of an object that is never changed (a frozen name): kept while it lives. */
export function memoizedByObject<K extends object, R>(compute: (key: K) => R): (key: K) => R {
  const answers = new WeakMap<K, { answer: R }>();
  return (key) => {
    let kept = answers.get(key);
    if (!kept) {
      const answer = compute(key);
      if (answer && typeof answer === 'object') Object.freeze(answer);
      kept = { answer };
      answers.set(key, kept);
    }
    return kept.answer;
  };
}
