// The portal's owners (the users records can be assigned to), as the Owners API v3 presents them
// (PublicOwner in test/fixtures/reference/hubspot-openapi/owners-v3.json): `id` is the owner id a
// record's `hubspot_owner_id` holds, `userId` the user's own id (not valid as an owner), `archived` for
// a deactivated user. Owners are not created through the API (it is read-only); the sandbox adds them
// as a portal admin would add users (POST /__sandbox/owners).

export interface PublicOwner {
  id: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  userId?: number;
  userIdIncludingInactive?: number;
  type: 'PERSON' | 'QUEUE';
  archived: boolean;
  createdAt: string;
  updatedAt: string;
  teams?: { id: string; name: string; primary: boolean }[];
}

export interface NewOwner {
  email: string;
  firstName?: string;
  lastName?: string;
  archived?: boolean;
  /** The user's own id; default a new one (the installing user's, to add them as an owner). */
  userId?: number;
}

export class OwnerDirectory {
  readonly #owners: PublicOwner[] = [];
  #nextId: number;
  #nextUserId: number;
  readonly #now: () => Date;

  constructor(seed = 41_629_000, now: () => Date = () => new Date()) {
    this.#nextId = seed;
    this.#nextUserId = 9_586_000 + (seed % 1000);
    this.#now = now;
  }

  add(input: NewOwner): PublicOwner {
    const email = input.email.trim();
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new Error(`owner email "${input.email}" is no email address`);
    if (this.#owners.some((o) => o.email?.toLowerCase() === email.toLowerCase()))
      throw new Error(`an owner with email ${email} exists`);
    const at = this.#now().toISOString();
    const userId = input.userId ?? this.#nextUserId++;
    const owner: PublicOwner = {
      id: String(this.#nextId++),
      email,
      ...(input.firstName ? { firstName: input.firstName } : {}),
      ...(input.lastName ? { lastName: input.lastName } : {}),
      type: 'PERSON',
      ...(input.archived ? {} : { userId }),
      userIdIncludingInactive: userId,
      archived: input.archived ?? false,
      createdAt: at,
      updatedAt: at,
      teams: [],
    };
    this.#owners.push(owner);
    return owner;
  }

  /** Deactivates the user: the owner is listed only with archived=true from then on. */
  archive(id: string): PublicOwner | undefined {
    const owner = this.#owners.find((o) => o.id === id);
    if (!owner) return undefined;
    owner.archived = true;
    delete owner.userId;
    owner.updatedAt = this.#now().toISOString();
    return owner;
  }

  /** Owners in id order (ids grow with creation), the archived or the active ones, optionally by email. */
  list(filter: { archived: boolean; email?: string }): PublicOwner[] {
    const email = filter.email?.toLowerCase();
    return this.#owners.filter(
      (o) => o.archived === filter.archived && (email === undefined || o.email?.toLowerCase() === email),
    );
  }

  /** Whether a record's `hubspot_owner_id` may hold this id: an active owner's. */
  isAssignable(id: string): boolean {
    return this.#owners.some((o) => o.id === id && !o.archived);
  }

  get(id: string): PublicOwner | undefined {
    return this.#owners.find((o) => o.id === id);
  }
}
