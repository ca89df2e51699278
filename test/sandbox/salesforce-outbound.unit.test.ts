// Outbound Messages from the Salesforce sandbox to a local express receiver: the SOAP 1.1 envelope and
// headers, batching, and the retry after an answer that is not `<Ack>true</Ack>`.
import express from 'express';
import { Connection } from 'jsforce';
import { afterAll, describe, expect, it } from 'vitest';
import { isAck } from '../../emulators/salesforce/outbound.ts';
import { type RunningSalesforceSandbox, startSalesforceSandbox } from '../../emulators/salesforce/server.ts';
import { type Listening, listen } from '../../src/service/listen.ts';
import { eventually } from '../helpers/poll.ts';

const closers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(closers.map((c) => c.close()));
});

const ACK = `<?xml version="1.0" encoding="UTF-8"?>
<soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/">
<soapenv:Body><notificationsResponse xmlns="http://soap.sforce.com/2005/09/outbound"><Ack>true</Ack></notificationsResponse></soapenv:Body>
</soapenv:Envelope>`;

interface Received {
  contentType: string | undefined;
  soapAction: string | undefined;
  body: string;
}

/** A receiver that answers each delivery with the next of `answers` (the last repeats). */
async function receiver(
  answers: { status: number; body: string }[],
): Promise<Listening & { received: Received[] }> {
  const received: Received[] = [];
  const app = express();
  app.post('/sfdc/outbound', express.text({ type: 'text/xml' }), (req, res) => {
    received.push({
      contentType: req.get('content-type'),
      soapAction: req.get('soapaction'),
      body: String(req.body),
    });
    const answer = answers[Math.min(received.length - 1, answers.length - 1)] ?? { status: 500, body: '' };
    res.status(answer.status).type('text/xml').send(answer.body);
  });
  const listening = await listen(app);
  closers.push(listening);
  return { ...listening, received };
}

async function start(endpointUrl: string): Promise<RunningSalesforceSandbox> {
  const sf = await startSalesforceSandbox({
    outbound: { endpointUrl, retryDelaysMs: [50, 100], batchWindowMs: 20 },
  });
  closers.push(sf);
  return sf;
}

describe('Outbound Messages', () => {
  it('delivers a SOAP notification for a new Account and retries it after a non-ack', async () => {
    const rx = await receiver([
      { status: 200, body: ACK.replace('<Ack>true</Ack>', '<Ack>false</Ack>') },
      { status: 200, body: 'OK' },
      { status: 200, body: ACK },
    ]);
    const sf = await start(`${rx.url}/sfdc/outbound`);
    const conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    const created = (await conn
      .sobject('Account')
      .create({ Name: 'Austin ISD & Co <TX>', BillingState: 'TX' })) as {
      id: string;
    };

    await eventually(() => sf.outbound.deliveries.some((d) => d.acked));
    expect(rx.received).toHaveLength(3);
    const first = rx.received[0];
    expect(first?.contentType).toBe('text/xml; charset=utf-8');
    expect(first?.soapAction).toBe('""');
    const body = first?.body ?? '';
    expect(body).toMatch(
      /<soapenv:Envelope xmlns:soapenv="http:\/\/schemas\.xmlsoap\.org\/soap\/envelope\/"/,
    );
    expect(body).toContain('<notifications xmlns="http://soap.sforce.com/2005/09/outbound">');
    expect(body).toContain(`<OrganizationId>${sf.orgId}</OrganizationId>`);
    expect(body).toMatch(/<ActionId>04k[A-Za-z0-9]{15}<\/ActionId>/);
    expect(body).toContain('<SessionId xsi:nil="true"/>');
    expect(body).toContain(
      `<EnterpriseUrl>${sf.url}/services/Soap/c/62.0/${sf.orgId.slice(0, 15)}</EnterpriseUrl>`,
    );
    expect(body).toContain(
      `<PartnerUrl>${sf.url}/services/Soap/u/62.0/${sf.orgId.slice(0, 15)}</PartnerUrl>`,
    );
    const notification =
      /<Notification><Id>(04l[A-Za-z0-9]{15})<\/Id><sObject xsi:type="sf:Account" xmlns:sf="urn:sobject\.enterprise\.soap\.sforce\.com"><sf:Id>([^<]+)<\/sf:Id><sf:Name>([^<]+)<\/sf:Name>/.exec(
        body,
      );
    expect(notification?.[2]).toBe(created.id);
    expect(notification?.[3]).toBe('Austin ISD &amp; Co &lt;TX&gt;');
    // The same notification id on every retry (receivers dedupe on it).
    for (const r of rx.received) expect(r.body).toContain(`<Id>${notification?.[1]}</Id>`);
    expect(sf.outbound.deliveries.map((d) => [d.attempt, d.acked])).toEqual([
      [1, false],
      [2, false],
      [3, true],
    ]);
    expect(sf.outbound.pending).toBe(0);
  });

  it('batches notifications created together into one message', async () => {
    const rx = await receiver([{ status: 200, body: ACK }]);
    const sf = await start(`${rx.url}/sfdc/outbound`);
    const conn = new Connection({ instanceUrl: sf.url, accessToken: sf.accessToken, version: '62.0' });
    await conn.sobject('Account').create([{ Name: 'A' }, { Name: 'B' }, { Name: 'C' }]);
    await eventually(() => sf.outbound.pending === 0 && sf.outbound.deliveries.length > 0);
    expect(rx.received).toHaveLength(1);
    expect(rx.received[0]?.body.match(/<Notification>/g)).toHaveLength(3);
    // Updates send nothing unless configured.
    const id = sf.store.list('Account')[0]?.id ?? '';
    sf.store.update('Account', id, { Website: 'a.org' });
    sf.outbound.configure({ onUpdate: true });
    sf.store.update('Account', id, { Website: 'b.org' });
    await sf.outbound.flush();
    expect(rx.received).toHaveLength(2);
    expect(rx.received[1]?.body).toContain('<sf:Website>b.org</sf:Website>');
  });

  it('recognises an acknowledgement only in a SOAP envelope', () => {
    expect(isAck(200, ACK)).toBe(true);
    expect(isAck(200, '<Ack>true</Ack>')).toBe(false);
    expect(isAck(500, ACK)).toBe(false);
    expect(isAck(200, ACK.replace('true', 'false'))).toBe(false);
  });
});
