// A stand-in for the three Slack Web API methods a rep's digest uses, answering as Slack documents
// them (api.slack.com/methods/…): every answer is HTTP 200 JSON with `ok`; an error is
// `{ok:false, error:"<code>"}`. The token comes as `Authorization: Bearer` (or a `token` argument):
// none → not_authed, another → invalid_auth. Arguments come form-encoded (as @slack/web-api sends
// them, objects as JSON strings) or as a JSON body.
//   users.lookupByEmail  email → {user} | users_not_found
//   conversations.open   users (one id) → {channel:{id:"D…"}} | user_not_found | users_list_not_supplied
//   chat.postMessage     channel, text and/or blocks (≤ 50) → {channel, ts, message}
//                        | channel_not_found | no_text | invalid_blocks | msg_too_long
// Every posted message is recorded with the user it reached; /__sandbox adds users and reads messages.
import express, { type Request } from 'express';

export interface SlackUser {
  id: string;
  email: string;
  name: string;
}

export interface PostedMessage {
  channel: string;
  /** The user the DM channel is with. */
  user: string;
  email: string;
  text: string;
  blocks: unknown[];
  ts: string;
}

export interface SlackStandIn {
  app: express.Express;
  users: SlackUser[];
  messages: PostedMessage[];
  addUser(email: string, name?: string): SlackUser;
  /** The next `times` calls of `method` answer HTTP `status` (a 5xx: Slack unavailable). */
  failNext(method: string, status: number, times?: number): void;
}

const MAX_BLOCKS = 50;
const MAX_TEXT = 40_000;

export function createSlackStandIn(options: { token: string; teamId?: string }): SlackStandIn {
  const teamId = options.teamId ?? 'T0SANDBOX';
  const users: SlackUser[] = [];
  const messages: PostedMessage[] = [];
  const channels = new Map<string, SlackUser>();
  const failures = new Map<string, { status: number; times: number }>();
  let seq = 0;
  const id = (prefix: string) => `${prefix}0${(++seq).toString(36).toUpperCase().padStart(8, '0')}`;

  const addUser = (email: string, name = email.split('@')[0] ?? email) => {
    const user = { id: id('U'), email, name };
    users.push(user);
    return user;
  };

  const app = express();
  app.disable('x-powered-by');
  app.use(express.urlencoded({ extended: false }));
  app.use(express.json());

  const control = express.Router();
  control.post('/users', (req, res) => {
    const email = typeof req.body?.email === 'string' ? req.body.email : '';
    if (!email.includes('@')) return void res.status(400).json({ error: 'email is required' });
    res.status(201).json(addUser(email, typeof req.body?.name === 'string' ? req.body.name : undefined));
  });
  control.get('/messages', (_req, res) => void res.json({ messages }));
  app.use('/__sandbox', control);

  const args = (req: Request): Record<string, string> => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries({ ...req.query, ...body }).map(([k, v]) => [
        k,
        typeof v === 'string' ? v : JSON.stringify(v),
      ]),
    );
  };
  const method = (name: string, handle: (a: Record<string, string>) => Record<string, unknown>) =>
    app.post(`/api/${name}`, (req, res) => {
      const failure = failures.get(name);
      if (failure && failure.times > 0) {
        failure.times--;
        return void res.status(failure.status).type('text/plain').send('service unavailable');
      }
      const a = args(req);
      const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? a.token;
      if (!bearer) return void res.json({ ok: false, error: 'not_authed' });
      if (bearer !== options.token) return void res.json({ ok: false, error: 'invalid_auth' });
      res.json(handle(a));
    });

  method('users.lookupByEmail', (a) => {
    const user = users.find((u) => u.email.toLowerCase() === (a.email ?? '').toLowerCase());
    if (!a.email) return { ok: false, error: 'invalid_arguments' };
    if (!user) return { ok: false, error: 'users_not_found' };
    return {
      ok: true,
      user: {
        id: user.id,
        team_id: teamId,
        name: user.name,
        deleted: false,
        real_name: user.name,
        is_bot: false,
        profile: { email: user.email, real_name: user.name, display_name: user.name },
      },
    };
  });

  method('conversations.open', (a) => {
    const ids = (a.users ?? '').split(',').filter(Boolean);
    if (!ids.length && !a.channel) return { ok: false, error: 'users_list_not_supplied' };
    const user = users.find((u) => u.id === ids[0]);
    if (!user) return { ok: false, error: 'user_not_found' };
    const existing = [...channels].find(([, u]) => u.id === user.id)?.[0];
    const channel = existing ?? id('D');
    channels.set(channel, user);
    return { ok: true, channel: { id: channel } };
  });

  method('chat.postMessage', (a) => {
    const user = a.channel ? channels.get(a.channel) : undefined;
    if (!user) return { ok: false, error: 'channel_not_found' };
    let blocks: unknown[] = [];
    if (a.blocks) {
      try {
        const parsed = JSON.parse(a.blocks) as unknown;
        if (!Array.isArray(parsed) || parsed.length > MAX_BLOCKS)
          return { ok: false, error: 'invalid_blocks' };
        blocks = parsed;
      } catch {
        return { ok: false, error: 'invalid_blocks' };
      }
    }
    const text = a.text ?? '';
    if (!text && !blocks.length) return { ok: false, error: 'no_text' };
    if (text.length > MAX_TEXT) return { ok: false, error: 'msg_too_long' };
    const ts = `${Math.floor(Date.now() / 1000)}.${String(++seq).padStart(6, '0')}`;
    messages.push({ channel: a.channel ?? '', user: user.id, email: user.email, text, blocks, ts });
    return {
      ok: true,
      channel: a.channel,
      ts,
      message: { type: 'message', text, blocks, ts, bot_id: 'B0SANDBOX' },
    };
  });

  app.use((_req, res) => void res.status(404).json({ ok: false, error: 'unknown_method' }));

  return {
    app,
    users,
    messages,
    addUser,
    failNext: (name, status, times = 1) => void failures.set(name, { status, times }),
  };
}
