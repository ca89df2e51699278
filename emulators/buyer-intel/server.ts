import { listen } from '../../src/service/listen.ts';
import { type BuyerIntelSandbox, type BuyerIntelSandboxOptions, createBuyerIntelSandbox } from './app.ts';

export interface RunningBuyerIntelSandbox extends BuyerIntelSandbox {
  url: string;
  /** A token with access to every bridge. */
  token: string;
  /** A token that gets 403 on bridges not shared with everyone. */
  restrictedToken: string;
  close(): Promise<void>;
}

export async function startBuyerIntelSandbox(
  options: BuyerIntelSandboxOptions & { port?: number; host?: string } = {},
): Promise<RunningBuyerIntelSandbox> {
  const sandbox = createBuyerIntelSandbox(options);
  const { url, close } = await listen(sandbox.app, options.port ?? 0, options.host);
  return {
    ...sandbox,
    url,
    token: sandbox.tokens.full[0] ?? '',
    restrictedToken: sandbox.tokens.restricted[0] ?? '',
    close: () => {
      sandbox.webhooks.close();
      return close();
    },
  };
}
