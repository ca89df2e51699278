// The card's "Undo last change" against the real service, over real HTTP with real Redis, the HubSpot
// emulator and the worker: the card's own API client sends its requests through a `hubspot.fetch` that
// does what HubSpot does (appends portalId, userId, userEmail and appId, sends the body as JSON, signs
// with the app's client secret, v3). The dry run plans what the undo then does, the card follows the
// undo run (the only run a CRM-signed caller may read), the history names who undid it; a forged call
// is refused. Then the card itself, rendered in HubSpot's test renderer, undoes a company's last change.
import { randomBytes, randomUUID } from 'node:crypto';
import { Button, Tag, Text } from '@hubspot/ui-extensions';
import { createRenderer } from '@hubspot/ui-extensions/testing';
import { createElement } from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BuyerIntelCard } from '../../connectors/hubspot/app/src/app/cards/BuyerIntelCard.tsx';
import {
  createApiClient,
  type FetchLike,
  pollJob,
} from '../../connectors/hubspot/app/src/app/cards/buyer-intel-api.ts';
import { fieldLabel, runDescription } from '../../connectors/hubspot/app/src/app/cards/buyer-intel-format.ts';
import { planLines, pollRun, undoneSummary } from '../../connectors/hubspot/app/src/app/cards/undo-logic.ts';
import { hubspotSignatureV3 } from '../../connectors/hubspot/webhook-signature.ts';
import type { RunningBuyerIntelSandbox } from '../../emulators/buyer-intel/server.ts';
import { type RunningHubSpotSandbox, startHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import { sandboxSettings } from '../../emulators/settings.ts';
import { DEFAULT_MAPPING } from '../../src/map/default-mapping.ts';
import { fieldDefinitions, PROVENANCE_FIELDS as P } from '../../src/map/field-definitions.ts';
import type { Service } from '../../src/service/runtime.ts';
import { startSandbox } from '../helpers/buyer-intel-sandbox.ts';
import { closeService, createTestService } from '../helpers/service.ts';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `test-card-undo-${randomUUID().slice(0, 8)}`;
const POPULATION = DEFAULT_MAPPING.fields.find((f) => f.attribute === 'Population')?.property ?? '';
/** Real polls, quickly: the worker answers in well under a second. */
const poll = { intervalMs: 50, maxPolls: 400 };

let bi: RunningBuyerIntelSandbox;
let hs: RunningHubSpotSandbox;
let service: Service;
let base: string;

beforeAll(async () => {
  [bi, hs] = await Promise.all([startSandbox(), startHubSpotSandbox()]);
  const settings = sandboxSettings(
    { buyerIntel: bi, hubspot: hs },
    { redisUrl: REDIS_URL, prefix },
    { worker: { concurrency: 4, writeBatchWaitMs: 20 } },
  );
  service = await createTestService({
    ...settings,
    api: { apiKeys: [`key-${randomBytes(16).toString('hex')}`] },
  });
  await service.connector('hubspot', String(hs.portalId)).ensureFields(fieldDefinitions(DEFAULT_MAPPING));
  base = (await service.startHttp(0, '127.0.0.1')).url;
  service.startWorker();
});

afterAll(async () => {
  await closeService(service, REDIS_URL, prefix);
  await Promise.all([bi?.close(), hs?.close()]);
});

/** `hubspot.fetch` as HubSpot runs it for a user of the portal (`secret`: the app's client secret). */
function hubspotFetch(secret = hs.clientSecret): FetchLike {
  return async (url, options) => {
    const called = new URL(url);
    called.searchParams.append('userId', '7');
    called.searchParams.append('portalId', String(hs.portalId));
    called.searchParams.append('userEmail', 'jane@example.com');
    called.searchParams.append('appId', '99');
    const method = options?.method ?? 'GET';
    const body = options?.body === undefined ? '' : JSON.stringify(options.body);
    const timestamp = String(Date.now());
    return fetch(called, {
      method,
      headers: {
        ...(body ? { 'content-type': 'application/json' } : {}),
        'x-hubspot-signature-v3': hubspotSignatureV3(secret, method, called.toString(), body, timestamp),
        'x-hubspot-request-timestamp': timestamp,
      },
      ...(body ? { body } : {}),
    });
  };
}

const company = (name: string, state: string) =>
  hs.store.createCompany({ name, state }, { source: 'CRM_UI' }).id;
const field = (id: string, name: string) => hs.store.getCompany(id)?.values.get(name) ?? null;
const api = () => createApiClient({ baseUrl: base, fetch: hubspotFetch(), tenant: String(hs.portalId) });

/** The card's refresh, followed as the card follows it. */
async function enrich(id: string): Promise<void> {
  const { jobId } = await api().refresh(id);
  expect((await pollJob(api(), jobId, poll)).state).toBe('completed');
}

describe("the card's undo against the real service (hubspot.fetch, v3 signature)", () => {
  it('previews, undoes and follows the run; the history says who undid it', async () => {
    const id = company('City of Austin', 'TX');
    await enrich(id);
    const notes = hs.store.notesOf(id).filter((n) => !n.archived);
    expect(notes.length).toBeGreaterThan(0);
    hs.store.updateCompany(id, { [POPULATION]: '1000001' }, { source: 'CRM_UI' });

    const plan = await api().previewUndo(id);
    expect(plan.totals).toMatchObject({ skip: 1, notes: notes.length, accounts: 1 });
    expect(plan.totals.restore).toBeGreaterThan(1);
    expect(planLines(plan)).toEqual(
      expect.arrayContaining([
        `${fieldLabel(POPULATION)}: kept your value (1000001)`,
        'Status: Enriched → —',
      ]),
    );
    // A dry run writes nothing.
    expect(field(id, P.status)).toBe('enriched');

    const queued = await api().undo(id);
    const run = await pollRun(api(), queued.runId, poll);
    expect(run).toMatchObject({
      kind: 'undo',
      counts: { restored: plan.totals.restore, skipped: 1, notesRemoved: notes.length },
    });
    expect(undoneSummary(run)).toBe(
      `Undone: ${plan.totals.restore} values put back, 1 value kept (a person changed it), ${notes.length} note${notes.length === 1 ? '' : 's'} removed.`,
    );
    expect(field(id, P.status)).toBeNull();
    expect(field(id, POPULATION)).toBe('1000001');
    expect(hs.store.notesOf(id).filter((n) => !n.archived)).toEqual([]);
    expect((await api().getAccount(id)).status).toBe('never');

    const [undone, refreshed] = (await api().getHistory(id)).changes;
    expect(undone?.runId).toBe(queued.runId);
    expect(undone && runDescription(undone)).toBe('undo by jane@example.com');
    // The refresh's run spans no other account, but it is no undo: a card reads only its undo.
    expect(refreshed?.runId).toEqual(expect.any(String));
    await expect(api().getRun(String(refreshed?.runId))).rejects.toMatchObject({
      status: 403,
      code: 'forbidden',
    });
  });

  it('refuses a forged signature, and says when there is nothing to undo', async () => {
    const id = company('Travis County', 'TX');
    const forged = createApiClient({
      baseUrl: base,
      fetch: hubspotFetch('not-the-secret'),
      tenant: String(hs.portalId),
    });
    await expect(forged.previewUndo(id)).rejects.toMatchObject({ status: 401 });
    await expect(api().previewUndo(id)).rejects.toMatchObject({
      status: 404,
      message: `nothing recorded for hubspot account ${id} in ${hs.portalId}`,
    });
  });

  it('the card itself, rendered, undoes the last change of the company it is on', async () => {
    const id = company('City of Austin', 'TX');
    await enrich(id);
    const card = createRenderer('crm.record.tab');
    card.render(
      createElement(BuyerIntelCard, {
        context: { portal: { id: hs.portalId }, crm: { objectId: id } },
        fetch: hubspotFetch(),
        baseUrl: base,
        poll,
      }),
    );
    const slow = { timeoutInMs: 15_000 };
    await card.waitFor(() => expect(card.findByTestId(Tag, 'status').text).toBe('Enriched'), slow);
    card.findByTestId(Button, 'undo').trigger('onClick');
    await card.waitFor(
      () => expect(card.findByTestId(Text, 'undo-summary').text).toMatch(/^Puts back \d+ values/),
      slow,
    );
    card.findByTestId(Button, 'undo-submit').trigger('onClick');
    await card.waitFor(
      () => expect(card.findByTestId(Text, 'undo-done').text).toMatch(/^Undone: \d+ values put back/),
      slow,
    );
    expect(card.findByTestId(Tag, 'status').text).toBe('Not enriched yet');
    expect(field(id, P.status)).toBeNull();
  });
});
