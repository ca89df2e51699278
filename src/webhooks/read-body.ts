// A webhook's body read as it arrives, for a receiver that must not let an unauthenticated sender cost
// it work: a declared length over the cap is refused before a byte is read, each chunk goes to the
// CRM's signature check as it comes (an HMAC updated per chunk, never a 1 MB string hashed at once),
// and a body over the cap is cut off where it crosses it. Ten forged 1 MB HubSpot deliveries in flight
// held, decoded and hashed 1 MB each on the event loop (/healthz p50 1.1 → 45 ms; issue 45, item 3).
import type { Request } from 'express';
import type { InboundBodyCheck, InboundRefusal } from '../../connectors/types.ts';

export type BodyRead =
  | { ok: true; body: Buffer }
  /** Refused: the answer to send, and the connection to close (the rest of the body stays unread). */
  | { ok: false; refusal: InboundRefusal | { status: 415; error: string; message: string } }
  /** The sender went away: nothing to answer. */
  | { ok: false; refusal: undefined };

const tooLarge = (max: number): InboundRefusal => ({
  ok: false,
  status: 413,
  error: 'payload_too_large',
  message: `the body is too large (over ${max} bytes)`,
});

export function readBody(
  req: Request,
  maxBytes: number,
  check: InboundBodyCheck | undefined,
): Promise<BodyRead> {
  const declared = Number(req.get('content-length') ?? Number.NaN);
  if (declared > maxBytes) return Promise.resolve({ ok: false, refusal: tooLarge(maxBytes) });
  const encoding = req.get('content-encoding')?.trim().toLowerCase();
  // CRMs send their deliveries uncompressed; inflating one would be work before any check.
  if (encoding && encoding !== 'identity')
    return Promise.resolve({
      ok: false,
      refusal: { status: 415, error: 'unsupported_media_type', message: 'send the body uncompressed' },
    });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const finish = (result: BodyRead) => {
      req.off('data', onData).off('end', onEnd).off('error', onGone).off('aborted', onGone);
      if (!result.ok) req.pause();
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) return finish({ ok: false, refusal: tooLarge(maxBytes) });
      check?.update(chunk);
      chunks.push(chunk);
    };
    const onEnd = () => {
      const refused = check?.end();
      finish(refused ? { ok: false, refusal: refused } : { ok: true, body: Buffer.concat(chunks, size) });
    };
    const onGone = () => finish({ ok: false, refusal: undefined });
    req.on('data', onData).on('end', onEnd).on('error', onGone).on('aborted', onGone);
  });
}
