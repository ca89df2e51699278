// Starts the Salesforce sandbox on a port and returns what a test or the demo needs to point
// `new jsforce.Connection({ instanceUrl: url, accessToken, refreshToken,
//   oauth2: { clientId, clientSecret, loginUrl: url }, version: '62.0' })` at it.
import { listen } from '../../src/service/listen.ts';
import { createSalesforceSandbox, type SalesforceSandbox, type SalesforceSandboxOptions } from './app.ts';

export interface RunningSalesforceSandbox extends SalesforceSandbox {
  /** Instance URL and login URL at once, e.g. http://127.0.0.1:53121. */
  url: string;
  orgId: string;
  clientId: string;
  clientSecret: string;
  username: string;
  /** A refresh token of the integration user (`auth.refreshToken` when given, else a new one). */
  refreshToken: string;
  /** A session of the integration user (expires after auth.accessTokenTtlSeconds). */
  accessToken: string;
  close(): Promise<void>;
}

export async function startSalesforceSandbox(
  options: SalesforceSandboxOptions & { port?: number; host?: string } = {},
): Promise<RunningSalesforceSandbox> {
  let url = '';
  const sandbox = createSalesforceSandbox({ ...options, instanceUrl: () => url });
  const listening = await listen(sandbox.app, options.port ?? 0, options.host);
  url = listening.url;
  return {
    ...sandbox,
    url,
    orgId: sandbox.store.orgId,
    clientId: sandbox.auth.clientId,
    clientSecret: sandbox.auth.clientSecret,
    username: sandbox.auth.username,
    refreshToken: options.auth?.refreshToken ?? sandbox.auth.issueRefreshToken(),
    accessToken: sandbox.auth.issueAccessToken(),
    close: async () => {
      sandbox.outbound.close();
      sandbox.streaming.close();
      await listening.close();
    },
  };
}
