// What the operator pages add to basic auth, for a browser: security headers from helmet (a CSP whose
// inline scripts and styles carry this response's nonce, no framing, nosniff, no referrer) and a CSRF
// check on every state-changing request.
//
// CSRF: basic auth is sent by the browser on any request to us, a cross-site one included, and there
// is no session to bind a token to. So a POST must show it comes from our own pages: Sec-Fetch-Site
// (sent by every current browser, not settable by a page) must be same-origin, or, from a browser too
// old to send it, Origin must be our own. A request with neither is no browser's (curl, a script
// holding the credentials) and cannot be forged by a third-party page. The POSTs also need JSON, which
// a cross-site form cannot send without a preflight we never grant.
import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import helmet from 'helmet';
import { contentTypeProblem } from '../shared/content-type.ts';

/** The nonce of this response's inline scripts and styles (set by `adminHeaders`). */
export const cspNonce = (res: Response): string => String(res.locals.cspNonce ?? '');

/** `thirdPartyUi`: Bull Board's bundle, whose React styles are inline (its scripts are its own files). */
export function adminHeaders(options: { thirdPartyUi?: boolean } = {}): RequestHandler[] {
  const nonce = (_req: unknown, res: unknown) => `'nonce-${cspNonce(res as Response)}'`;
  return [
    (_req: Request, res: Response, next: NextFunction) => {
      res.locals.cspNonce = randomBytes(16).toString('base64');
      next();
    },
    helmet({
      contentSecurityPolicy: {
        useDefaults: false,
        directives: {
          defaultSrc: ["'self'"],
          scriptSrc: ["'self'", nonce],
          styleSrc: options.thirdPartyUi ? ["'self'", "'unsafe-inline'"] : ["'self'", nonce],
          imgSrc: ["'self'", 'data:'],
          connectSrc: ["'self'"],
          formAction: ["'self'"],
          frameAncestors: ["'none'"],
          // Bull Board's page resolves its assets against <base href="/admin/queues/">: our own
          // origin only; our pages have no base at all.
          baseUri: options.thirdPartyUi ? ["'self'"] : ["'none'"],
          objectSrc: ["'none'"],
        },
      },
      frameguard: { action: 'deny' },
      referrerPolicy: { policy: 'no-referrer' },
    }),
  ];
}

const SAFE = new Set(['GET', 'HEAD', 'OPTIONS']);

export function sameOriginOnly(publicBaseUrl: string | undefined) {
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE.has(req.method)) return next();
    const site = req.get('sec-fetch-site');
    const origin = req.get('origin');
    const ours = publicBaseUrl ? new URL(publicBaseUrl).origin : `${req.protocol}://${req.get('host')}`;
    const allowed = site !== undefined ? site === 'same-origin' : origin === undefined || origin === ours;
    if (allowed) return next();
    res.status(403).json({
      error: 'cross_site_request',
      message: 'admin actions are taken from the admin pages only (same origin)',
    });
  };
}

/**
 * Bull Board's state-changing routes (add, pause, resume, empty, clean, retry, promote…): its page
 * calls them with fetch, which always says where it comes from. So, beyond `sameOriginOnly`, one
 * that says nothing (no Sec-Fetch-Site, no Origin) is refused too, and a body must be JSON: no form
 * or text/plain request reaches them.
 */
export function boardWritesFromItsPage(publicBaseUrl: string | undefined) {
  const sameOrigin = sameOriginOnly(publicBaseUrl);
  return (req: Request, res: Response, next: NextFunction) => {
    if (SAFE.has(req.method)) return next();
    if (req.get('sec-fetch-site') === undefined && req.get('origin') === undefined)
      return void res.status(403).json({
        error: 'cross_site_request',
        message: 'queue actions are taken from the queue board only (Sec-Fetch-Site or Origin required)',
      });
    const declared = req.get('content-type');
    const hasBody = Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;
    const problem = hasBody || declared ? contentTypeProblem(declared, ['application/json']) : undefined;
    if (problem) return void res.status(415).json({ error: 'unsupported_media_type', message: problem });
    sameOrigin(req, res, next);
  };
}

/**
 * Puts each response's nonce on our pages' own <script> and <style> tags. Only those can match: every
 * value a page shows is escaped (`<` is `&lt;`), so no CRM or user text becomes a nonced tag.
 */
export function nonceOnPages(_req: Request, res: Response, next: NextFunction): void {
  const send = res.send.bind(res);
  res.send = (body?: unknown) => {
    const html = typeof body === 'string' && /^text\/html/.test(String(res.get('content-type') ?? ''));
    return send(html ? body.replace(/<(script|style)>/g, `<$1 nonce="${cspNonce(res)}">`) : body);
  };
  next();
}
