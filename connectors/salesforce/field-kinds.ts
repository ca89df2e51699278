// Which fields of an object are Checkboxes, from sObject Describe (GET /sobjects/{type}/describe: each
// field's `type`, "boolean" for a Checkbox). A Checkbox has no empty value: Salesforce refuses null for
// one (INVALID_TYPE_ON_FIELD_IN_RECORD, "value not of required type"), describe calls it nillable: false,
// and the SOAP API nulls only nillable fields (sObject.fieldsToNull). Clearing one means writing false,
// so a write that clears fields asks here first. Only a clear asks: a write without null costs no call,
// and one describe serves this connector's clears for RECHECK_MS.

import type { SalesforceCalls } from './client.ts';

/** How long a describe answers for fields it named; one it did not name is asked again after this. */
export const RECHECK_MS = 10 * 60_000;

interface Described {
  at: number;
  /** Lower-case API names of every field describe named, and of the Checkboxes among them. */
  fields: Set<string>;
  checkboxes: Set<string>;
}

export class CheckboxFields {
  readonly #calls: SalesforceCalls;
  readonly #sobject: string;
  readonly #now: () => number;
  #described: Described | undefined;
  #pending: Promise<void> | undefined;

  constructor(calls: SalesforceCalls, sobject: string, now: () => number = Date.now) {
    this.#calls = calls;
    this.#sobject = sobject;
    this.#now = now;
  }

  /**
   * Those of `apiNames` that are Checkboxes (in the case given). Describes the object when it has not
   * yet, or when a name is missing from a describe older than RECHECK_MS (setup may have made the field
   * since). A field describe does not name is not taken for a Checkbox: Salesforce answers for it.
   */
  async among(apiNames: readonly string[]): Promise<Set<string>> {
    if (apiNames.length === 0) return new Set();
    const unknown = (d: Described) => apiNames.some((n) => !d.fields.has(n.toLowerCase()));
    const d = this.#described;
    if (!d || (unknown(d) && this.#now() - d.at >= RECHECK_MS)) await this.#describe();
    const checkboxes = this.#described?.checkboxes ?? new Set<string>();
    return new Set(apiNames.filter((n) => checkboxes.has(n.toLowerCase())));
  }

  /** One describe at a time: clears of concurrent batches share it. */
  #describe(): Promise<void> {
    this.#pending ??= (async () => {
      try {
        const { conn, call } = this.#calls;
        const result = await call(`sobject.${this.#sobject}.describe`, () =>
          conn.sobject(this.#sobject).describe(),
        );
        const fields = Array.isArray(result.fields) ? result.fields : [];
        this.#described = {
          at: this.#now(),
          fields: new Set(fields.map((f) => String(f.name).toLowerCase())),
          checkboxes: new Set(
            fields.filter((f) => f.type === 'boolean').map((f) => String(f.name).toLowerCase()),
          ),
        };
      } finally {
        this.#pending = undefined;
      }
    })();
    return this.#pending;
  }
}
