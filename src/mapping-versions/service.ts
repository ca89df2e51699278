// What the console does with the mapping: show the one in force and its versions, check and preview
// an edit, save it as the next version, revert to an older one. Bad input is an EditProblem the page
// shows beside its input (400), a stale edit a 409; the routes only translate.
import type { Mapping } from '../map/mapping-schema.ts';
import type { MatchThresholds } from '../resolve/thresholds.ts';
import {
  type MappingVersion,
  MappingVersionConflict,
  type MappingVersions,
} from '../store/mapping-versions.ts';
import type { ActiveMapping, ActiveVersion } from './active.ts';
import { type FormProblem, type MappingEdit, mappingOfEdit } from './edit.ts';
import { type MappingPreview, type PreviewDeps, previewMappingChange, thresholdEffect } from './preview.ts';

/** Who the file's mapping is recorded as when it is stored as version 1. */
export const FILE_ACTOR = 'the mapping file';

export class EditProblem extends Error {
  readonly status: 400 | 404 | 409;
  readonly code: string;
  readonly problems: FormProblem[];
  constructor(status: 400 | 404 | 409, code: string, message: string, problems: FormProblem[] = []) {
    super(message);
    this.status = status;
    this.code = code;
    this.problems = problems;
  }
}

export interface MappingConsole {
  active(): Promise<ActiveVersion>;
  /** Stored versions, newest first; the file as version 1 while none is. */
  versions(): Promise<MappingVersion[]>;
  preview(
    edit: MappingEdit,
  ): Promise<{ mapping: Mapping; thresholds: MatchThresholds; preview: MappingPreview }>;
  save(edit: MappingEdit, actor: string): Promise<MappingVersion>;
  revert(version: number, base: number, actor: string, reason?: string): Promise<MappingVersion>;
}

export function mappingConsole(options: {
  active: ActiveMapping;
  file: Mapping;
  /** The configured thresholds, version 1's. */
  thresholds: MatchThresholds;
  /** Where the file's mapping came from, recorded with version 1. */
  source: string;
  versions: () => Promise<MappingVersions>;
  preview: PreviewDeps;
}): MappingConsole {
  const fresh = async (): Promise<ActiveVersion> => {
    options.active.invalidate();
    return options.active.current();
  };
  const fileVersion = (): MappingVersion => ({
    version: 1,
    mapping: options.file,
    thresholds: options.thresholds,
    actor: FILE_ACTOR,
    reason: options.source,
    reverts: null,
    at: new Date(0),
  });
  const checked = async (
    edit: MappingEdit,
  ): Promise<{ active: ActiveVersion; mapping: Mapping; thresholds: MatchThresholds }> => {
    const active = await fresh();
    if (edit.base !== active.version)
      throw new EditProblem(
        409,
        'mapping_changed',
        `the mapping changed since version ${edit.base} (now version ${active.version}); reload the page and edit it again`,
      );
    const result = mappingOfEdit(edit, active.mapping, active.thresholds);
    if (!result.ok) {
      const n = result.problems.length;
      throw new EditProblem(
        400,
        'invalid_mapping',
        `the mapping has ${n === 1 ? '1 problem' : `${n} problems`}: ${result.problems.map((p) => (p.row === null ? p.message : `row ${p.row + 1} ${p.key ?? ''}: ${p.message}`)).join('; ')}`,
        result.problems,
      );
    }
    return { active, mapping: result.mapping, thresholds: result.thresholds };
  };
  const store = async (base: number, next: Parameters<MappingVersions['save']>[1]) => {
    try {
      const saved = await (await options.versions()).save(base, next, {
        mapping: options.file,
        thresholds: options.thresholds,
        actor: FILE_ACTOR,
        reason: options.source,
      });
      options.active.invalidate();
      return saved;
    } catch (err) {
      if (err instanceof MappingVersionConflict) throw new EditProblem(409, 'mapping_changed', err.message);
      throw err;
    }
  };

  return {
    active: fresh,
    async versions() {
      const stored = await (await options.versions()).list();
      return stored.length ? stored : [fileVersion()];
    },
    async preview(edit) {
      const { active, mapping, thresholds } = await checked(edit);
      const preview = await previewMappingChange(options.preview, active.mapping, mapping);
      const effect = await thresholdEffect(options.preview, active.thresholds, thresholds);
      return { mapping, thresholds, preview: { ...preview, ...(effect ? { thresholds: effect } : {}) } };
    },
    async save(edit, actor) {
      const { active, mapping, thresholds } = await checked(edit);
      return store(active.version, { mapping, thresholds, actor, reason: edit.reason || null });
    },
    async revert(version, base, actor, reason) {
      if (version === base)
        throw new EditProblem(400, 'already_active', `version ${version} is the mapping in force already`);
      const older = await (await options.versions()).get(version);
      if (!older) throw new EditProblem(404, 'unknown_version', `there is no mapping version ${version}`);
      return store(base, {
        mapping: older.mapping,
        thresholds: older.thresholds ?? options.thresholds,
        actor,
        reason: reason || `revert to version ${version}`,
        reverts: version,
      });
    },
  };
}
