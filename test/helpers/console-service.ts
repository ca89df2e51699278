// The service the console's browser tests drive: HubSpot only, a worker, the fields created, the admin
// credentials and an API key of its own, and one headless Chromium — started before the file's tests,
// released after them. Its parts are read once the file's beforeAll has run.
import { randomBytes } from 'node:crypto';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { RunningHubSpotSandbox } from '../../emulators/hubspot/server.ts';
import type { Service } from '../../src/service/runtime.ts';
import { launchChromium } from './browser.ts';
import { startTestService, type TestService } from './start-service.ts';

export interface ConsoleTestService {
  readonly ADMIN: { username: string; password: string };
  readonly API_KEY: string;
  readonly running: TestService;
  readonly hs: RunningHubSpotSandbox;
  readonly service: Service;
  readonly base: string;
  readonly browser: Browser;
}

export function consoleTestService(name: string): ConsoleTestService {
  const ADMIN = { username: 'ops', password: randomBytes(12).toString('hex') };
  const API_KEY = `key-${randomBytes(16).toString('hex')}`;
  let running: TestService | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    running = await startTestService({
      name,
      without: ['salesforce'],
      worker: { writeBatchWaitMs: 20 },
      settings: (s) => ({ ...s, api: { apiKeys: [API_KEY] }, admin: ADMIN }),
      fields: true,
      startWorker: true,
    });
    browser = await launchChromium();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await running?.close();
  });
  const started = (): TestService => {
    if (!running) throw new Error('the console service starts in beforeAll');
    return running;
  };
  return {
    ADMIN,
    API_KEY,
    get running() {
      return started();
    },
    get hs() {
      return started().hs;
    },
    get service() {
      return started().service;
    },
    get base() {
      return started().base;
    },
    get browser() {
      if (!browser) throw new Error('Chromium starts in beforeAll');
      return browser;
    },
  };
}
