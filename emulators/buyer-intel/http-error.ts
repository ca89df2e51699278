// The provider's error body is not shown in either document. The sandbox answers with a small JSON body
// naming the status, a dotted code in the provider's style (the reference quotes
// `resource.buyer.summary.empty`), a message and the request id.
import type { Response } from 'express';

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  413: 'Payload Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
};

export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export const badRequest = (code: string, message: string) => new HttpError(400, code, message);
export const notFound = (code: string, message: string) => new HttpError(404, code, message);

export function sendError(res: Response, status: number, code: string, message: string): void {
  res.status(status).json({
    status,
    error: REASONS[status] ?? 'Error',
    code,
    message,
    requestId: res.getHeader('X-Request-Id'),
  });
}
