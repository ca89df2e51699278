// Starts the HubSpot sandbox on a port and returns what a test or the demo needs to point
// `new Client({ accessToken, basePath: url, numberOfApiCallRetries: 0 })` at it.
import { listen } from '../../src/service/listen.ts';
import { createHubSpotSandbox, type HubSpotSandbox, type HubSpotSandboxOptions } from './app.ts';

export interface RunningHubSpotSandbox extends HubSpotSandbox {
  /** Base URL, e.g. http://127.0.0.1:53121 — the SDK's `basePath`. */
  url: string;
  portalId: number;
  /** The private-app token (never expires). */
  accessToken: string;
  /** The OAuth app (its client secret also signs webhooks). */
  appId: number;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export async function startHubSpotSandbox(
  options: HubSpotSandboxOptions & { port?: number; host?: string } = {},
): Promise<RunningHubSpotSandbox> {
  const sandbox = createHubSpotSandbox(options);
  const listening = await listen(sandbox.app, options.port ?? 0, options.host);
  return {
    ...sandbox,
    url: listening.url,
    portalId: sandbox.store.portalId,
    accessToken: sandbox.auth.privateAppToken,
    appId: sandbox.auth.appId,
    clientId: sandbox.auth.clientId,
    clientSecret: sandbox.auth.clientSecret,
    close: async () => {
      sandbox.webhooks.close();
      await listening.close();
    },
  };
}
