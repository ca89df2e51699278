// Reads a mapping file (YAML or JSON) and validates it. Every problem — syntax errors and schema errors
// alike — is reported at once in one MappingError, each located as file:line:column and by its path:
//   mapping.yaml:14:16 fields[3].attribute: "Populaton" is not a BuyerField key (did you mean "Population"?)
// JSON goes through the `yaml` parser too (JSON is YAML flow syntax), which gives its nodes positions;
// JSON.parse still decides what is valid JSON.
import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { type Document, isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument } from 'yaml';
import { IntegrationError } from '../shared/errors.ts';
import { formatPath } from '../shared/format-path.ts';
import { type Mapping, type MappingIssue, validateMapping } from './mapping-schema.ts';

export interface MappingProblem {
  file: string;
  /** 1-based; null when the problem has no place in the file (it could not be read). */
  line: number | null;
  column: number | null;
  /** `fields[3].attribute`, or null for a syntax error. */
  path: string | null;
  message: string;
}

/** The mapping file is unreadable or invalid; `message` lists every problem, one a line. */
export class MappingError extends IntegrationError {
  readonly file: string;
  readonly problems: readonly MappingProblem[];

  constructor(file: string, problems: readonly MappingProblem[]) {
    const count = problems.length === 1 ? '1 problem' : `${problems.length} problems`;
    super(`invalid mapping file ${file} (${count}):\n${problems.map(formatProblem).join('\n')}`, {
      permanent: true,
    });
    this.file = file;
    this.problems = problems;
  }
}

export function formatProblem(p: MappingProblem): string {
  const where = p.line === null ? p.file : `${p.file}:${p.line}:${p.column ?? 1}`;
  return p.path === null ? `${where}: ${p.message}` : `${where} ${p.path}: ${p.message}`;
}

export type MappingFormat = 'json' | 'yaml';

/** By extension (.json, .yaml, .yml), else by content: a document starting with `{` or `[` is JSON. */
export function detectFormat(text: string, fileName: string): MappingFormat {
  const ext = extname(fileName).toLowerCase();
  if (ext === '.json') return 'json';
  if (ext === '.yaml' || ext === '.yml') return 'yaml';
  return /^\s*[{[]/.test(text) ? 'json' : 'yaml';
}

/** Reads and validates a mapping file. Throws MappingError (also when the file cannot be read). */
export async function loadMapping(path: string): Promise<Mapping> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new MappingError(path, [
      {
        file: path,
        line: null,
        column: null,
        path: null,
        message: `cannot read the mapping file: ${reason}`,
      },
    ]);
  }
  return parseMapping(text, path);
}

/** Parses and validates the text of a mapping file; `fileName` names it in errors and picks the format. */
export function parseMapping(text: string, fileName: string, format?: MappingFormat): Mapping {
  const source = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const kind = format ?? detectFormat(source, fileName);
  const lines = new LineCounter();
  const problems: MappingProblem[] = [];
  const at = (offset: number) => {
    const { line, col } = lines.linePos(Math.max(0, Math.min(offset, source.length)));
    return { line, column: col };
  };

  const doc = parseDocument(source, {
    lineCounter: lines,
    keepSourceTokens: true,
    prettyErrors: false,
    uniqueKeys: true,
  });

  let raw: unknown;
  let parsed = false;
  if (kind === 'json') {
    try {
      raw = JSON.parse(source);
      parsed = true;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      const position = /at position (\d+)/.exec(message)?.[1];
      // Without a position the error is at the end ("Unexpected end of JSON input").
      const offset = position === undefined ? source.length : Number(position);
      problems.push({
        file: fileName,
        ...at(offset),
        path: null,
        message: `JSON syntax error: ${message.replace(/\s*\(line \d+ column \d+\)/, '').replace(/ in JSON at position \d+/, '')}`,
      });
    }
    // Duplicate keys: JSON.parse keeps the last silently; the yaml parser flags them.
    for (const e of doc.errors) {
      if (e.code === 'DUPLICATE_KEY') {
        problems.push({
          file: fileName,
          ...at(e.pos[0]),
          path: null,
          message: duplicateKeyMessage(source, e.pos[0]),
        });
      }
    }
  } else {
    for (const e of doc.errors) {
      problems.push({
        file: fileName,
        ...at(e.pos[0]),
        path: null,
        message:
          e.code === 'DUPLICATE_KEY'
            ? duplicateKeyMessage(source, e.pos[0])
            : `YAML syntax error: ${firstLine(e.message)}`,
      });
    }
    // Duplicate keys still leave a readable document: validate it too.
    if (doc.errors.every((e) => e.code === 'DUPLICATE_KEY')) {
      try {
        raw = doc.toJS({ maxAliasCount: 1000 });
        parsed = true;
      } catch (err) {
        problems.push({
          file: fileName,
          line: 1,
          column: 1,
          path: null,
          message: `YAML error: ${err instanceof Error ? firstLine(err.message) : String(err)}`,
        });
      }
    }
  }

  if (parsed) {
    const result = validateMapping(raw);
    if (result.ok && !problems.length) return result.mapping;
    if (!result.ok) {
      for (const issue of result.issues) {
        problems.push({
          file: fileName,
          ...at(offsetOf(doc, issue)),
          path: formatPath(issue.path),
          message: issue.message,
        });
      }
    }
  }

  problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
  throw new MappingError(fileName, problems);
}

/** The key text at `offset` ("property", or a quoted JSON key) for a duplicate-key message. */
function duplicateKeyMessage(source: string, offset: number): string {
  const rest = source.slice(offset);
  const quoted = /^"((?:[^"\\]|\\.)*)"|^'((?:[^']|'')*)'/.exec(rest);
  const key = quoted ? (quoted[1] ?? quoted[2]) : /^[^:\s,{}[\]]+/.exec(rest)?.[0];
  return key === undefined ? 'duplicate key' : `duplicate key "${key}" (each key once per object)`;
}

function firstLine(message: string): string {
  return message.split('\n')[0]?.trim() ?? message;
}

/**
 * Where an issue's path is in the document: the value node it names (or its key, for an unknown key);
 * for a missing key, the nearest existing ancestor (the object that lacks it).
 */
function offsetOf(doc: Document, issue: MappingIssue): number {
  let node: unknown = doc.contents;
  let offset = startOf(node) ?? 0;
  for (let i = 0; i < issue.path.length; i++) {
    const segment = issue.path[i];
    const last = i === issue.path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && keyOf(p.key) === String(segment));
      if (!pair) break;
      const keyStart = startOf(pair.key);
      if (last && issue.atKey && keyStart !== undefined) return keyStart;
      // `attribute:` with no value: point at the key.
      const valueStart = isScalar(pair.value) && pair.value.value === null ? undefined : startOf(pair.value);
      offset = valueStart ?? keyStart ?? offset;
      node = pair.value;
    } else if (isSeq(node) && typeof segment === 'number') {
      const item = node.items[segment];
      if (item === undefined) break;
      offset = startOf(item) ?? offset;
      node = item;
    } else {
      break;
    }
  }
  return offset;
}

function keyOf(key: unknown): string | undefined {
  if (isScalar(key)) return String(key.value);
  return typeof key === 'string' ? key : undefined;
}

function startOf(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return Array.isArray(range) ? range[0] : undefined;
}
