// Conformance mode (tests only): with EMULATOR_CONFORMANCE_FILE set (test/setup/conformance.ts sets it for
// the whole suite; an emulator process a test spawns inherits it), the HubSpot, Buyer Intelligence and
// Salesforce emulators check every exchange against the vendors' documents (conformance-check.ts says
// what is checked) and append each divergence to that file as one JSON line; the suite's teardown fails
// the run listing them.
//
// Every answer is caught where it leaves: `res.end` (and `res.write`, `res.writeHead`) are wrapped per
// response, so `res.send`, `res.json`, a bare `res.status(204).end()` and headers given to `writeHead`
// are all seen once, with the status and headers that went out. Each exchange also leaves one line in
// the sibling file (exchangesFile) saying what could be checked of its answer and of its request, from
// every process, for the coverage the teardown prints and holds at 100 % of answers. Not checked nor
// counted: the control plane (/__sandbox, no vendor's). Counted apart, as not in scope: deliberately
// broken answers (injected faults, `res.locals.injectedFault`), routes outside every document
// (each emulator's conformance-rules.ts), and a request whose connection closed before any answer.
import { closeSync, openSync, writeSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import type { ConformanceReference } from '../descriptor.ts';
import { checkExchange } from './conformance-check.ts';
import { type ConformanceApi, referenceFor, registerReference } from './conformance-spec.ts';

export { checkExchange, divergences, type Exchange, type Line } from './conformance-check.ts';
export { type ConformanceApi, registerReference } from './conformance-spec.ts';

/** Where the exchange lines of a run go, beside its divergences. */
export const exchangesFile = (file: string) => file.replace(/(\.jsonl)?$/, '.exchanges.jsonl');

/** One exchange as the coverage report counts it. */
export interface ExchangeLine {
  api: ConformanceApi;
  method: string;
  /** The document's path template, else the path. */
  route: string;
  status: number;
  answer: string;
  request: string;
}

// One descriptor per file and process: an O_APPEND write of one line lands whole, whichever process.
const descriptors = new Map<string, number>();
function append(file: string, line: object): void {
  try {
    let fd = descriptors.get(file);
    if (fd === undefined) {
      fd = openSync(file, 'a');
      descriptors.set(file, fd);
    }
    writeSync(fd, `${JSON.stringify(line)}\n`);
  } catch {
    // The run's folder is gone (a test's own conformance file after its teardown): nothing to tell.
    const fd = descriptors.get(file);
    if (fd !== undefined) closeSync(fd);
    descriptors.delete(file);
  }
}

/** Bodies beyond this are not kept whole (none of the emulators' answers comes near). */
const MAX_BODY_BYTES = 16 * 1024 * 1024;

type AnyFn = (...args: unknown[]) => unknown;

function capture(api: ConformanceApi, file: string, path: string, req: Request, res: Response): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let done = false;
  const keep = (chunk: unknown, encoding: unknown) => {
    if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
    const buffer =
      typeof chunk === 'string'
        ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8')
        : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size <= MAX_BODY_BYTES) chunks.push(buffer);
  };
  const exchange = (answer: string, request: string, route = path, status = res.statusCode) =>
    append(exchangesFile(file), { api, method: req.method, route, status, answer, request } as ExchangeLine);

  // The three methods as plain functions: their overloads do not admit a wrapper that passes any through.
  const out = res as unknown as Record<'writeHead' | 'write' | 'end', AnyFn>;
  const { writeHead, write, end } = out;
  // Headers given to writeHead are not kept by Node unless they went through setHeader: set them so,
  // which is what Node itself does once any header was set.
  out.writeHead = function (this: ServerResponse, ...args: unknown[]) {
    const last = args.at(-1);
    if (args.length > 1 && last && typeof last === 'object' && !this.headersSent) {
      if (Array.isArray(last)) {
        for (let i = 0; i + 1 < last.length; i += 2) this.setHeader(String(last[i]), last[i + 1] as string);
      } else {
        for (const [k, v] of Object.entries(last)) if (v !== undefined) this.setHeader(k, v as string);
      }
      args.pop();
    }
    return writeHead.apply(this, args);
  };
  out.write = function (this: ServerResponse, ...args: unknown[]) {
    keep(args[0], args[1]);
    return write.apply(this, args);
  };
  out.end = function (this: ServerResponse, ...args: unknown[]) {
    keep(args[0], args[1]);
    // The answer goes out first; it is checked from what went out (status and headers as sent).
    const result = end.apply(this, args);
    if (!done) {
      done = true;
      answered();
    }
    return result;
  };
  res.once('close', () => {
    if (done) return;
    done = true;
    exchange('excluded: the connection closed before an answer', 'excluded: unanswered', path, 0);
  });

  function answered() {
    if (res.locals.injectedFault)
      return exchange('excluded: an injected fault', 'excluded: an injected fault');
    if (size > MAX_BODY_BYTES) return exchange('unchecked: body over 16 MiB', 'unchecked: body over 16 MiB');
    const headers = Object.fromEntries(
      Object.entries(res.getHeaders()).map(([k, v]) => [k.toLowerCase(), v]),
    );
    try {
      const verdict = checkExchange(api, {
        method: req.method,
        path,
        status: res.statusCode,
        contentType: String(headers['content-type'] ?? ''),
        body: Buffer.concat(chunks).toString('utf8'),
        headers,
        requestBody: req.body,
        request: {
          contentType: req.headers['content-type'],
          hasBody:
            Number(req.headers['content-length'] ?? 0) > 0 || req.headers['transfer-encoding'] !== undefined,
          authorization: req.headers.authorization ?? '',
        },
      });
      for (const line of verdict.lines) append(file, line);
      exchange(verdict.answer, verdict.request, verdict.route);
    } catch (err) {
      append(file, { api, error: `${req.method} ${path}: the check failed: ${String(err)}` });
      exchange('unchecked: the check failed', 'unchecked: the check failed');
    }
  }
}

/**
 * Middleware that checks every answer (and the request it answers) against the API's reference
 * documents, when conformance mode is on (EMULATOR_CONFORMANCE_FILE); a no-op otherwise. Mount it
 * before anything that answers.
 */
export function conformanceCheck(reference: ConformanceReference) {
  const { api } = reference;
  registerReference(reference);
  const file = process.env.EMULATOR_CONFORMANCE_FILE;
  if (!file) return (_req: Request, _res: Response, next: NextFunction) => next();
  // Compiled now, not on the first answer.
  referenceFor(api);
  return (req: Request, res: Response, next: NextFunction) => {
    // The path the emulator was asked for (req.url: relative to where the app is mounted, before any
    // router of the app rewrites it).
    const path = req.url.split('?')[0] ?? '';
    if (!path.startsWith('/__sandbox')) capture(api, file, path, req, res);
    next();
  };
}
