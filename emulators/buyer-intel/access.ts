import type { SandboxBridge } from './data/dataset.ts';
import { HttpError, notFound } from './http-error.ts';
import type { Caller, OperationContext } from './operation.ts';
import { uuidParam } from './params.ts';

export const canSee = (caller: Caller, bridge: SandboxBridge) => !caller.restricted || bridge.sharedWithAll;

/** The bridge named in the path: 400 for a malformed id, 404 for an unknown one, 403 when not shared with the caller. */
export function bridgeFor(ctx: OperationContext, caller: Caller, raw: string | undefined): SandboxBridge {
  const id = uuidParam(raw, 'bridgeId');
  const bridge = ctx.dataset.bridgesById.get(id);
  if (!bridge) throw notFound('resource.bridge.not_found', `no bridge with id ${id}`);
  if (!canSee(caller, bridge)) {
    throw new HttpError(403, 'access.bridge.denied', 'this token may not access this bridge');
  }
  return bridge;
}
