// A refusal a person's action meets (bad input, unknown account, a store or queue that is down), with
// the HTTP status and code every door (API, admin page, CLI) reports it with.
export class ActionProblem extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}
