// A CRM that lives in this process: accounts with fields, our field definitions and notes, and an
// "account created" event for each new account. It refuses what a CRM refuses (an unknown field, a
// deleted account, a number field given letters), so it exercises the same paths a real CRM does.
// One store per workspace (tenant) for the life of the process.
import { EventEmitter } from 'node:events';
import type { CrmOwner, FieldDefinition, FollowUpTask } from '../types.ts';

export interface MemoryAccount {
  id: string;
  name: string | null;
  state: string | null;
  city: string | null;
  website: string | null;
  fields: Map<string, string>;
  /** The owning user's id (one of `owners`), as a person set it. */
  ownerId?: string;
}

export interface MemoryNote {
  id: string;
  accountId: string;
  key: string;
  title: string;
  body: string;
  occurredAt: string;
  /** A follow-up task rather than a note: its assignment and status (`open` until a person acts). */
  task?: FollowUpTask & { status: string };
}

export class MemoryCrmStore {
  readonly workspace: string;
  readonly accounts = new Map<string, MemoryAccount>();
  readonly fields = new Map<string, FieldDefinition>();
  readonly notes: MemoryNote[] = [];
  /** The workspace's users who can own accounts. */
  readonly owners: CrmOwner[] = [];
  readonly #events = new EventEmitter();
  #nextId = 1;

  constructor(workspace: string) {
    this.workspace = workspace;
  }

  /** Zero-padded so that ids sort in creation order (listAccounts pages by id). */
  #id(prefix: string): string {
    return `${prefix}${String(this.#nextId++).padStart(9, '0')}`;
  }

  /**
   * Creates an account as a person would, and announces it. `fields` are what the person typed in
   * other fields (an id field, say); a CRM keeps a record without a name when it was imported so.
   */
  createAccount(values: {
    name: string | null;
    state?: string;
    city?: string;
    website?: string;
    fields?: Record<string, string>;
  }): string {
    const id = this.#id('acc');
    this.accounts.set(id, {
      id,
      name: values.name,
      state: values.state ?? null,
      city: values.city ?? null,
      website: values.website ?? null,
      fields: new Map(Object.entries(values.fields ?? {})),
    });
    this.#events.emit('created', id);
    return id;
  }

  deleteAccount(id: string): void {
    this.accounts.delete(id);
  }

  addNote(note: Omit<MemoryNote, 'id'>): MemoryNote {
    const stored = { ...note, id: this.#id(note.task ? 'task' : 'note') };
    this.notes.push(stored);
    return stored;
  }

  /** Deletes a note; false when there is none by that id (never made, or deleted already). */
  removeNote(id: string): boolean {
    const index = this.notes.findIndex((n) => n.id === id);
    if (index < 0) return false;
    this.notes.splice(index, 1);
    return true;
  }

  /** A person sets a task's status (`completed`, say), as they would in the CRM. */
  setTaskStatus(id: string, status: string): void {
    const task = this.notes.find((n) => n.id === id)?.task;
    if (!task) throw new Error(`no task ${id}`);
    task.status = status;
  }

  notesOf(accountId: string): MemoryNote[] {
    return this.notes.filter((n) => n.accountId === accountId);
  }

  onCreated(listener: (accountId: string) => void): () => void {
    this.#events.on('created', listener);
    return () => this.#events.off('created', listener);
  }
}

const stores = new Map<string, MemoryCrmStore>();

/** The workspace's store, made on first use. */
export function memoryCrm(workspace: string): MemoryCrmStore {
  let store = stores.get(workspace);
  if (!store) {
    store = new MemoryCrmStore(workspace);
    stores.set(workspace, store);
  }
  return store;
}
