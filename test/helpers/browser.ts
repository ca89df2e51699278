// Debian's Chromium, headless, as the browser tests drive it: no network of its own (this machine has
// none), no first-run or update work. The prerequisites check (test/setup) makes sure it is installed.
import { type Browser, chromium } from 'playwright-core';

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
