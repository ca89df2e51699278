// Sandbox-only control endpoints under /__sandbox (not part of Salesforce's API): call counts, fault
// knobs, expiring sessions, outbound message deliveries and settings, custom fields and the integration
// user's field-level access to them, streaming clients and retained change events.
import express, { type NextFunction, type Request, type Response } from 'express';
import { mountStatsAndFaults } from '../shared/control.ts';
import type { CallStats, FaultPlan } from '../shared/faults.ts';
import type { AuthRegistry } from './auth.ts';
import type { OutboundSender, OutboundSettings } from './outbound.ts';
import { isRecord } from './routes/sobjects.ts';
import { resolveType, type SalesforceStore } from './store.ts';
import type { StreamingServer } from './streaming.ts';

export interface ControlParts {
  store: SalesforceStore;
  auth: AuthRegistry;
  faults: FaultPlan;
  stats: CallStats;
  outbound: OutboundSender;
  streaming: StreamingServer;
}

export function controlPlane(parts: ControlParts): express.Router {
  const control = express.Router();
  control.use(express.json());

  mountStatsAndFaults(control, parts);

  control.post('/tokens/expire', (req, res) => {
    const token = isRecord(req.body) && typeof req.body.token === 'string' ? req.body.token : undefined;
    res.json({ expired: parts.auth.expire(token) });
  });
  control.post('/oauth/tokens', (_req, res) => {
    res.json({ accessToken: parts.auth.issueAccessToken(), refreshToken: parts.auth.issueRefreshToken() });
  });
  control.post('/fields', (req, res) => {
    const body = isRecord(req.body) ? req.body : {};
    const type = resolveType(String(body.sobjectType ?? 'Account'));
    if (!type) throw new Error(`unknown sobjectType ${String(body.sobjectType)}`);
    res.status(201).json({ name: parts.store.defineCustomField(type, String(body.name ?? '')) });
  });
  // Field-level security of the integration user: `{sobjectType, name, editable: false}` takes its Edit
  // on the field away (Read stays), `editable: true` gives it back.
  control.put('/field-access', (req, res) => {
    const body = isRecord(req.body) ? req.body : {};
    const type = resolveType(String(body.sobjectType ?? 'Account'));
    if (!type) throw new Error(`unknown sobjectType ${String(body.sobjectType)}`);
    if (typeof body.name !== 'string' || typeof body.editable !== 'boolean')
      throw new Error('field-access takes {sobjectType, name, editable: boolean}');
    parts.store.setFieldEditable(type, body.name, body.editable);
    res.json({ sobjectType: type, name: body.name, editable: body.editable });
  });
  control.get('/outbound/deliveries', (_req, res) => {
    res.json({ deliveries: parts.outbound.deliveries, pending: parts.outbound.pending });
  });
  control.put('/outbound', (req, res) => {
    parts.outbound.configure((req.body ?? {}) as OutboundSettings);
    res.json(parts.outbound.settings);
  });
  control.post('/outbound/flush', async (_req, res) => {
    await parts.outbound.flush();
    res.status(204).end();
  });

  control.get('/streaming', (_req, res) => {
    res.json({ clients: parts.streaming.clientCount, events: parts.streaming.events });
  });

  control.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    res.status(400).json({ error: err instanceof Error ? err.message : String(err) });
  });
  return control;
}
