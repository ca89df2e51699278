// Starts the Slack Web API stand-in on a port: `apiUrl` is what SLACK_API_URL takes.
import { listen } from '../../src/service/listen.ts';
import { createSlackStandIn, type SlackStandIn } from './app.ts';

export interface RunningSlackStandIn extends SlackStandIn {
  /** e.g. http://127.0.0.1:53122/api/ */
  apiUrl: string;
  token: string;
  close(): Promise<void>;
}

export const SANDBOX_SLACK_TOKEN = 'xoxb-sandbox-0000000000-digest';

export async function startSlackStandIn(
  options: { port?: number; host?: string; token?: string } = {},
): Promise<RunningSlackStandIn> {
  const token = options.token ?? SANDBOX_SLACK_TOKEN;
  const standIn = createSlackStandIn({ token });
  const listening = await listen(standIn.app, options.port ?? 0, options.host);
  return { ...standIn, apiUrl: `${listening.url}/api/`, token, close: listening.close };
}
