/** Scores and similarities are shown, compared and cached to three decimals, so that what a reason shows is what was decided. */
export const round3 = (n: number): number => Math.round(n * 1000) / 1000;
