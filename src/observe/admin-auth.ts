// HTTP basic auth for the operator pages (/admin): constant-time comparison, and a 401 with a
// WWW-Authenticate challenge so a browser asks for the credentials.
import type { NextFunction, Request, Response } from 'express';
import { sameText } from '../shared/compare.ts';

export function basicAuth(username: string, password: string) {
  const credentials = `${username}:${password}`;
  return (req: Request, res: Response, next: NextFunction) => {
    const header = req.get('authorization') ?? '';
    const m = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header);
    const given = m?.[1] ? Buffer.from(m[1], 'base64').toString('utf8') : '';
    if (given && sameText(given, credentials)) return next();
    res.status(401).set('WWW-Authenticate', 'Basic realm="buyer-intel-sync admin", charset="UTF-8"').json({
      error: 'unauthorized',
      message: 'the admin pages need the ADMIN_USERNAME and ADMIN_PASSWORD credentials',
    });
  };
}
