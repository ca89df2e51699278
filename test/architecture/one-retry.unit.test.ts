// One retry executor, one decision from facts. Every call tried again inside one operation goes through
// src/shared/retry.ts (`retrying`), which reads a failure's facts (`failureFacts`, the error root's)
// and waits by the one backoff; BullMQ's job retries decide from the same facts (queues/failure.ts).
// This test fails on (a) a retry loop written by hand outside src/shared and (b) a retry or give-up
// decision made from an error's class or name outside the error root.
//
// Both are heuristics on the syntax tree, not proofs. A retry loop is a loop (for, while, do) that
//   - names its counter for tries (`attempt`, `retry`, `tries` in its header), or
//   - has a catch (not in a nested function) that goes round again (`continue`) or waits (a call
//     named sleep, delay, pause, wait, setTimeout or backoffDelay), or
//   - ends in a try whose catch falls through to the next turn (no throw, return or break);
// and a call to `backoffDelay` is a retry's wait being computed. A paging loop, a poll for a lock or
// a token bucket's wait has no catch that goes round: not flagged.
// A class decision is `instanceof SomeError` (not `Error` itself), `err.name ===`/`!==`, or
// `constructor.name`, where the statement or the function around it speaks of permanent, retry,
// final, fatal, transient or giving up — or where a call of that function does (a predicate on the
// class whose answer decides elsewhere in the file), its callers followed in turn.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { productionSources, ROOT } from '../helpers/source-files.ts';

/** Where a hand-made retry or a class decision is allowed, and why. */
const ALLOWED: { file: string; what: string; why: string }[] = [
  {
    file: 'queues/failure.ts',
    what: 'backoffDelay',
    why: "BullMQ's backoffStrategy: BullMQ runs the job retries, this only says how long to wait",
  },
  {
    file: 'connectors/salesforce/change-events.ts',
    what: 'backoffDelay',
    why: 'the change-event stream resubscribes on a timer after its callback failed: no loop waits',
  },
  {
    file: 'src/batch/replies.ts',
    what: 'a loop ending in a catch that falls through',
    why: 'a listener reads answers until it is closed; a failed read waits before the next and never gives up, so no try count or budget applies',
  },
  {
    file: 'queues/enrich-worker.ts',
    what: 'UnrecoverableError',
    why: "BullMQ's own signal that no attempt is left; BullMQ itself decides by that class",
  },
  {
    file: 'queues/signal-queue.ts',
    what: 'UnrecoverableError',
    why: "BullMQ's own signal that no attempt is left; BullMQ itself decides by that class",
  },
];

// A for-of, for-in or counted for walks items: its catch moves on to the next one, it does not repeat
// a call. Only a loop that could run the same call again is looked into.
const isLoop = (n: ts.Node): n is ts.ForStatement | ts.WhileStatement | ts.DoStatement =>
  ts.isForStatement(n) || ts.isWhileStatement(n) || ts.isDoStatement(n);
const walksItems = (n: ts.ForStatement | ts.WhileStatement | ts.DoStatement) =>
  ts.isForStatement(n) && n.incrementor !== undefined;
const WAITS = /^(sleep|delay|pause|wait|setTimeout|backoffDelay)$/;
const COUNTS_TRIES = /attempt|retr|tries/i;
const DECIDES = /permanent|retr|final|fatal|giv(?:e|ing)[ _]?up|transient/i;

const calleeName = (call: ts.CallExpression): string | undefined => {
  const e = call.expression;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  return undefined;
};

/** Whether `node` holds (not inside a nested function) a node that `test` accepts. */
function holds(node: ts.Node, test: (n: ts.Node) => boolean): boolean {
  let found = false;
  const visit = (n: ts.Node) => {
    if (found || ts.isFunctionLike(n)) return;
    if (test(n)) found = true;
    else ts.forEachChild(n, visit);
  };
  ts.forEachChild(node, visit);
  return found;
}

function loopHeader(loop: ts.ForStatement | ts.WhileStatement | ts.DoStatement, file: ts.SourceFile): string {
  if (ts.isForStatement(loop))
    return [loop.initializer, loop.condition, loop.incrementor].map((n) => n?.getText(file) ?? '').join(';');
  return loop.expression.getText(file);
}

const exits = (block: ts.Block) => {
  const last = block.statements.at(-1);
  return (
    last !== undefined &&
    (ts.isThrowStatement(last) || ts.isReturnStatement(last) || ts.isBreakStatement(last))
  );
};

/** The hand-made retries of a source: each with its line and why it counts as one. */
function retryLoops(source: string): { line: number; why: string }[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const found: { line: number; why: string }[] = [];
  const at = (n: ts.Node) => file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1;
  const visit = (node: ts.Node) => {
    if (isLoop(node)) {
      const catches: ts.CatchClause[] = [];
      holds(node.statement, (n) => {
        if (ts.isCatchClause(n)) catches.push(n);
        return false;
      });
      const goesRound = catches.some((c) =>
        holds(
          c.block,
          (n) => ts.isContinueStatement(n) || (ts.isCallExpression(n) && WAITS.test(calleeName(n) ?? '')),
        ),
      );
      const body = node.statement;
      const last = ts.isBlock(body) ? body.statements.at(-1) : body;
      const fallsThrough =
        last !== undefined &&
        ts.isTryStatement(last) &&
        last.catchClause !== undefined &&
        !exits(last.catchClause.block);
      if (COUNTS_TRIES.test(loopHeader(node, file)))
        found.push({ line: at(node), why: 'a loop counting tries' });
      else if (walksItems(node)) {
        // moves on to the next item (see isLoop)
      } else if (goesRound)
        found.push({ line: at(node), why: 'a loop whose catch goes round again or waits' });
      else if (fallsThrough)
        found.push({ line: at(node), why: 'a loop ending in a catch that falls through' });
    }
    if (ts.isCallExpression(node) && calleeName(node) === 'backoffDelay')
      found.push({ line: at(node), why: 'backoffDelay' });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Decisions by an error's class or name: each with its line and the class or name it reads. */
function classDecisions(source: string): { line: number; what: string }[] {
  const file = ts.createSourceFile('x.ts', source, ts.ScriptTarget.Latest, true);
  const found: { line: number; what: string }[] = [];
  const at = (n: ts.Node) => file.getLineAndCharacterOfPosition(n.getStart(file)).line + 1;
  const holderOf = (n: ts.Node): string | undefined => {
    let fn: ts.Node | undefined = n;
    while (fn && !ts.isFunctionLike(fn)) fn = fn.parent;
    const named = fn && (fn as ts.FunctionLikeDeclaration).name;
    const holder = fn && ts.isVariableDeclaration(fn.parent) ? fn.parent.name : named;
    return holder?.getText(file);
  };
  const context = (n: ts.Node): string => {
    let stmt: ts.Node = n;
    while (stmt.parent && !ts.isStatement(stmt)) stmt = stmt.parent;
    return `${stmt.getText(file)} ${holderOf(n) ?? ''}`;
  };
  const calls: ts.CallExpression[] = [];
  const collect = (n: ts.Node) => {
    if (ts.isCallExpression(n)) calls.push(n);
    ts.forEachChild(n, collect);
  };
  collect(file);
  // A predicate that tests a class decides wherever its answer is used: `if (unsupported(err) ||
  // failures >= GIVING_UP)` decides by the class `unsupported` tests. Its callers are followed (and
  // theirs) in the file until one speaks of a decision.
  const decides = (n: ts.Node): boolean => {
    const seen = new Set<string>();
    const pending: ts.Node[] = [n];
    for (let next = pending.pop(); next; next = pending.pop()) {
      if (DECIDES.test(context(next))) return true;
      const holder = holderOf(next);
      if (holder === undefined || seen.has(holder)) continue;
      seen.add(holder);
      pending.push(...calls.filter((call) => calleeName(call) === holder));
    }
    return false;
  };
  const visit = (node: ts.Node) => {
    let what: string | undefined;
    if (ts.isBinaryExpression(node)) {
      const op = node.operatorToken.kind;
      if (op === ts.SyntaxKind.InstanceOfKeyword) {
        const cls = node.right.getText(file);
        if (/Error$/.test(cls) && cls !== 'Error') what = cls;
      } else if (
        op === ts.SyntaxKind.EqualsEqualsEqualsToken ||
        op === ts.SyntaxKind.ExclamationEqualsEqualsToken
      ) {
        const left = node.left.getText(file);
        if (/^(err|error|e|failure|cause|reason)\.name$/.test(left)) what = left;
      }
    }
    if (ts.isPropertyAccessExpression(node) && node.getText(file).endsWith('constructor.name'))
      what = 'constructor.name';
    if (what && decides(node)) found.push({ line: at(node), what });
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

/** Production code outside src/shared/, where the executor and the error root live. */
const production = () => productionSources().filter((f) => !f.path.startsWith('src/shared/'));

const allowed = (path: string, what: string) => ALLOWED.some((a) => a.file === path && a.what === what);

describe('one retry executor', () => {
  it('recognises the shapes of a hand-made retry, and not a paging loop or a poll (self-check)', () => {
    const shapes = [
      'for (let attempt = 1; ; attempt++) { const r = await call(); if (r.ok) return r; await sleep(9); }',
      'for (;;) { try { return await call(); } catch (err) { if (bad(err)) throw err; await delay(5); } }',
      'while (true) { try { return await call(); } catch (err) { if (n++ > 2) throw err; continue; } }',
      'for (;;) { try { return await read(fields); } catch (err) { fields = fewer(err); } }',
      'const ms = backoffDelay(failures, policy);',
    ];
    for (const shape of shapes) expect(retryLoops(shape), shape).toHaveLength(1);
    const fine = [
      'for (;;) { const page = await list(after); if (!page.length) break; after = page.at(-1); }',
      'while (!(await take(key))) { if (Date.now() > deadline) throw busy(); await delay(250); }',
      'for (;;) { let s; try { s = await states(); } catch { failed++; s = []; } use(s); }',
      'for (const item of items) { try { await send(item); } catch (err) { failed.push(item); continue; } }',
      'for (let i = 0; i < n; i++) { try { await send(i); } catch { await delay(1); } }',
    ];
    for (const shape of fine) expect(retryLoops(shape), shape).toEqual([]);
  });

  it('has no retry loop outside src/shared', () => {
    const files = production();
    expect(files.length).toBeGreaterThan(200);
    const offences = files.flatMap(({ path, source }) =>
      retryLoops(source)
        .filter((hit) => !allowed(path, hit.why))
        .map((hit) => `${path}:${hit.line}: ${hit.why}: go through retrying() (src/shared/retry.ts)`),
    );
    expect(offences).toEqual([]);
  });
});

describe('decisions read facts, not classes', () => {
  it('recognises a decision by class or name, and not a class read for its fields (self-check)', () => {
    expect(classDecisions('const permanent = err instanceof AccountNotFoundError;')).toEqual([
      { line: 1, what: 'AccountNotFoundError' },
    ]);
    expect(classDecisions("function isFatal(err) { return err.name === 'AuthError'; }")).toEqual([
      { line: 1, what: 'err.name' },
    ]);
    expect(classDecisions('if (err.constructor.name === "X") retry();')).toEqual([
      { line: 1, what: 'constructor.name' },
    ]);
    expect(
      classDecisions('if (!(err instanceof SalesforceRequestError)) throw err; read(err.errorCode);'),
    ).toEqual([]);
    expect(classDecisions('if (err instanceof Error) log(err.message);')).toEqual([]);
    // A predicate on the class, used where the decision is made (the resolver's criteria search had it).
    const predicate = [
      'function unsupported(err) { return err instanceof ResponseValidationError; }',
      'function learn(err) { failures++; if (unsupported(err) || failures >= FAILURES_BEFORE_GIVING_UP) off(); }',
    ];
    expect(classDecisions(predicate.join('\n'))).toEqual([{ line: 1, what: 'ResponseValidationError' }]);
    expect(classDecisions(`${predicate[0]}\nconst ok = (err) => !unsupported(err);`)).toEqual([]);
    expect(
      classDecisions(
        'const stops = (err) => err instanceof AuthError;\nrun({ isFatal: (err) => stops(err) });',
      ),
    ).toEqual([{ line: 1, what: 'AuthError' }]);
  });

  it('makes no retry or give-up decision by class outside the error root', () => {
    const offences = production().flatMap(({ path, source }) =>
      classDecisions(source)
        .filter((hit) => !allowed(path, hit.what))
        .map(
          (hit) => `${path}:${hit.line}: decides by ${hit.what}: read failureFacts() (src/shared/errors.ts)`,
        ),
    );
    expect(offences).toEqual([]);
  });

  it('lists only places that still need their exception', () => {
    const stale = ALLOWED.filter(({ file, what }) => {
      const source = readFileSync(join(ROOT, file), 'utf8');
      return ![
        ...retryLoops(source).map((h) => h.why),
        ...classDecisions(source).map((h) => h.what),
      ].includes(what);
    });
    expect(stale).toEqual([]);
  });
});
