// The error responses of the OpenAPI document, each with what it means for that operation: every 4xx/5xx
// body is the one `Error` schema, so the parts of the document describe only the status codes.
const DEFAULT_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Bad input; the message names the problem',
  401: 'Not authenticated',
  403: 'The caller may not do this',
  404: 'Not found',
  503: 'Redis or the database is unavailable; try again after Retry-After seconds',
};

/** `{ "400": {…}, "401": {…} }` for the given codes; `said` words a code for this operation. */
export function errorResponses(codes: readonly number[], said: Readonly<Record<number, string>> = {}) {
  return Object.fromEntries(
    codes.map((c) => [
      String(c),
      {
        description: said[c] ?? DEFAULT_DESCRIPTIONS[c] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      },
    ]),
  );
}
