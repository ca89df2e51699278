// /admin/connections: one row per tenant the service serves — its CRM, where its credential comes
// from, the token's state and expiry, the permissions it lacks for what the configuration turns on,
// the last refusal and the link to connect or reinstall. Tenants that lack a permission are listed
// first and named in the summary, so "which tenant's token lacks a scope" is answered on arrival.
// Rendered from src/tenants/connections.ts, which never carries a token or a secret.
import type { ConnectionsView, TenantConnection } from '../tenants/connections.ts';
import { esc } from './html.ts';
import { readableTime, renderConsolePage } from './layout.ts';

/** "29 min", "3 h", "2 days": how far `ms` is, as a person says it. */
export function spanOf(ms: number): string {
  const min = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  if (min < 90) return `${min} min`;
  const h = Math.round(min / 60);
  return h < 48 ? `${h} h` : `${Math.round(h / 24)} days`;
}

function tokenCell(c: TenantConnection, now: number): string {
  const s = c.state;
  const renews = s.renews ? '<br><small>refresh token kept: renews itself on the next call</small>' : '';
  if (s.token === 'expired')
    return `<span class="badge warn" data-token="expired">expired ${spanOf(now - (s.expiresAt ?? now))} ago</span>${renews}`;
  if (s.token === 'expiring' && s.expiresAt !== undefined)
    return `<span class="badge ok" data-token="expiring">connected</span> expires in ${spanOf(s.expiresAt - now)}${renews}`;
  return `<span class="badge ok" data-token="connected">connected</span>${renews}`;
}

function scopesCell(c: TenantConnection): string {
  const { missing, granted } = c.state;
  if (missing.length)
    return `<strong>Lacks ${missing.length === 1 ? 'a permission' : `${missing.length} permissions`}:</strong><ul>${missing
      .map((m) => `<li><code>${esc(m.scope)}</code> <small>— ${esc(m.neededFor)}</small></li>`)
      .join('')}</ul>`;
  if (granted)
    return `<span class="badge ok">every permission needed</span> <small>(${granted.length} granted)</small>`;
  return `<span class="muted">not reported by ${esc(c.crmLabel)}; none refused in the last day</span>`;
}

function errorCell(c: TenantConnection): string {
  const e = c.lastError;
  if (!e) return '<span class="muted">none in the last day</span>';
  return `${readableTime(new Date(e.at))}: <code>${esc(e.operation)}</code> refused for want of <code>${esc(e.missing.join(' or '))}</code>`;
}

export function renderConnectionsPage(view: ConnectionsView, now = Date.now()): string {
  const connections = view.tenants;
  const lacking = connections.filter((c) => c.state.missing.length > 0);
  const ordered = [...lacking, ...connections.filter((c) => c.state.missing.length === 0)];
  const name = (c: TenantConnection) => `${c.crmLabel} ${c.tenantNoun} ${c.tenant}`;
  const summary = connections.length
    ? lacking.length
      ? `<p class="summary" id="lacking" role="status"><strong>${lacking.length} of ${connections.length} lack a permission:</strong> ${lacking.map((c) => esc(name(c))).join(', ')}. Reinstall with every permission approved (or add them to the private app), then the next call uses them.</p>`
      : `<p class="summary" id="lacking" role="status">All ${connections.length} connections hold the permissions the configuration needs.</p>`
    : '<p class="summary" id="lacking">No tenant is connected yet.</p>';
  const rows = ordered
    .map(
      (c) => `<tr class="connection" data-crm="${esc(c.crm)}" data-tenant="${esc(c.tenant)}">
<th scope="row">${esc(c.crmLabel)} ${esc(c.tenantNoun)} <code>${esc(c.tenant)}</code><br><small>${c.source === 'stored' ? 'added as a tenant' : 'from the configuration'}</small></th>
<td>${esc(c.state.credential)}</td><td>${tokenCell(c, now)}</td><td>${scopesCell(c)}</td><td>${errorCell(c)}</td></tr>`,
    )
    .join('');
  const links = view.connect;
  const unreadable = view.unreadable.length
    ? `<p class="summary" id="unreadable"><strong>${view.unreadable.length} stored tenant${view.unreadable.length === 1 ? '' : 's'} cannot be read</strong> and ${view.unreadable.length === 1 ? 'is' : 'are'} not served: ${view.unreadable.map((u) => `<code>${esc(u)}</code>`).join(', ')}. Check TOKEN_ENCRYPTION_KEY, or add ${view.unreadable.length === 1 ? 'it' : 'them'} again.</p>`
    : '';
  const connect = links.length
    ? `<h2>Connect a tenant</h2><ul id="connect">${links.map((l) => `<li><a href="${esc(l.href)}">${esc(l.label)}</a> <small>(also reinstalls one, with the permissions asked afresh)</small></li>`).join('')}</ul>`
    : '<h2>Connect a tenant</h2><p id="connect">No install flow is configured: tenants are added with <code>buyer-intel-sync tenants add</code> (docs/crm-setup.md).</p>';
  return renderConsolePage({
    title: 'Connections',
    active: 'connections',
    // An operation's name is one long word: it wraps instead of widening its column.
    css: '#connections code{overflow-wrap:anywhere}',
    body: `<h1>Connections</h1>
${summary}
${unreadable}
<div class="scroll"><table id="connections"><thead><tr><th scope="col">Tenant</th><th scope="col">Credential</th><th scope="col">Token</th><th scope="col">Permissions</th><th scope="col">Last error</th></tr></thead>
<tbody>${rows || '<tr><td colspan="5">No tenant is connected yet.</td></tr>'}</tbody></table></div>
${connect}`,
  });
}
