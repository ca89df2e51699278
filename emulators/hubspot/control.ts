// Sandbox-only control endpoints under /__sandbox (not part of HubSpot's API): call counts, fault knobs,
// webhook deliveries, expiring OAuth tokens, the consent step of the OAuth install flow (which HubSpot
// serves from app.hubspot.com), and edits "made by a person in the CRM UI" for demos run from another
// process, and the portal's users (owners).
import express, { type NextFunction, type Request, type Response } from 'express';
import { mountStatsAndFaults } from '../shared/control.ts';
import type { CallStats, FaultPlan } from '../shared/faults.ts';
import type { AuthRegistry } from './auth.ts';
import { HubSpotError } from './errors.ts';
import { presentRecord } from './present.ts';
import { isRecord } from './request.ts';
import type { HubSpotStore } from './store.ts';
import type { WebhookSender, WebhookSettings } from './webhooks.ts';

export interface ControlParts {
  store: HubSpotStore;
  auth: AuthRegistry;
  faults: FaultPlan;
  stats: CallStats;
  webhooks: WebhookSender;
}

export function controlPlane(parts: ControlParts): express.Router {
  const control = express.Router();
  control.use(express.json());

  mountStatsAndFaults(control, parts);

  control.get('/webhooks/deliveries', (_req, res) => {
    res.json({ deliveries: parts.webhooks.deliveries });
  });
  control.put('/webhooks', (req, res) => {
    parts.webhooks.configure((req.body ?? {}) as WebhookSettings);
    const { retryDelaysMs: _delays, ...settings } = parts.webhooks.settings;
    res.json(settings);
  });
  control.post('/webhooks/flush', (_req, res) => {
    parts.webhooks.flush();
    res.status(204).end();
  });

  control.post('/tokens/expire', (req, res) => {
    const token = isRecord(req.body) && typeof req.body.token === 'string' ? req.body.token : undefined;
    res.json({ expired: parts.auth.expire(token) });
  });
  // A token pair as an install would grant it: the default scopes, or `{scopes: [...]}`.
  control.post('/oauth/tokens', (req, res) => {
    const scopes =
      isRecord(req.body) && Array.isArray(req.body.scopes) ? req.body.scopes.map(String) : undefined;
    res.json(parts.auth.issueTokens(Date.now(), scopes));
  });
  // A portal admin changing the private app's scopes in its settings.
  control.put('/private-app/scopes', (req, res) => {
    const scopes = isRecord(req.body) && Array.isArray(req.body.scopes) ? req.body.scopes.map(String) : [];
    parts.auth.setPrivateAppScopes(scopes);
    res.json({ scopes });
  });
  // The consent step of the install flow: redirects to the app's redirect_uri with a code to exchange.
  control.get('/oauth/authorize', (req, res) => {
    const clientId = String(req.query.client_id ?? '');
    const redirectUri = String(req.query.redirect_uri ?? '');
    if (clientId !== parts.auth.clientId || !redirectUri) {
      res.status(400).json({ error: 'client_id must be the sandbox app and redirect_uri is required' });
      return;
    }
    const scopes = String(req.query.scope ?? '')
      .split(/[\s+]+/)
      .filter(Boolean);
    const code = parts.auth.issueAuthorizationCode(redirectUri, scopes.length ? scopes : undefined);
    const target = new URL(redirectUri);
    target.searchParams.set('code', code);
    if (typeof req.query.state === 'string') target.searchParams.set('state', req.query.state);
    res.redirect(302, target.toString());
  });

  // A person creating or editing a company in HubSpot (changeSource CRM_UI).
  control.post('/ui/companies', (req, res) => {
    const properties = isRecord(req.body) && isRecord(req.body.properties) ? req.body.properties : {};
    const record = parts.store.createCompany(properties, { source: 'CRM_UI' });
    res.status(201).json(presentRecord(parts.store, record, { properties: [...record.values.keys()] }));
  });
  control.patch('/ui/companies/:id', (req, res) => {
    const properties = isRecord(req.body) && isRecord(req.body.properties) ? req.body.properties : {};
    const record = parts.store.updateCompany(String(req.params.id), properties, { source: 'CRM_UI' });
    res.json(presentRecord(parts.store, record, { properties: [...record.values.keys()] }));
  });

  // An admin adding a user to the portal (who then is an owner), or deactivating one.
  control.post('/owners', (req, res) => {
    const body = isRecord(req.body) ? req.body : {};
    const text = (v: unknown) => (typeof v === 'string' && v.trim() ? v.trim() : undefined);
    const firstName = text(body.firstName);
    const lastName = text(body.lastName);
    const owner = parts.store.owners.add({
      email: String(body.email ?? ''),
      ...(firstName ? { firstName } : {}),
      ...(lastName ? { lastName } : {}),
      archived: body.archived === true,
    });
    res.status(201).json(owner);
  });
  control.post('/owners/:id/archive', (req, res) => {
    const owner = parts.store.owners.archive(String(req.params.id));
    if (!owner) res.status(404).json({ error: `no owner ${req.params.id}` });
    else res.json(owner);
  });

  control.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    if (err instanceof HubSpotError) {
      res.status(err.httpStatus).json(err.body);
      return;
    }
    res.status(400).json({ error: err instanceof Error ? err.message : String(err) });
  });
  return control;
}
