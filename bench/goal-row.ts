// One goal as the bench prints it: the goal, what this run measured, and whether it is met (null: not
// measured here, with where it is shown instead).
export interface GoalRow {
  goal: string;
  measured: string;
  met: boolean | null;
}
