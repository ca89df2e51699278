// The console's Runs list (/admin/runs) and the live part of a run's page (/admin/runs/:id): what each
// backfill, re-enrichment, undo or digest did and how far it is, so a sales-ops lead sees at a glance
// whether the run they started is still going, held back by the provider, or done. Every value escaped.
import { describeThrottle } from '../backfill/run-progress.ts';
import { esc } from './html.ts';
import { rangeLabel, readableTime, renderConsolePage } from './layout.ts';
import { etaWords, type RunProgressJson } from './runs-progress.ts';

export interface RunsListRow {
  id: string;
  kind: string;
  label: string;
  actor: string | null;
  startedAt: Date;
  progress: RunProgressJson;
}

const STATE_BADGE = { running: 'warn', finished: 'ok', failed: 'fail' } as const;

const stateBadge = (p: RunProgressJson) =>
  `<span class="badge ${STATE_BADGE[p.state]}" data-state="${p.state}">${p.state}</span>`;

const doneOf = (p: RunProgressJson, of = ' / ') =>
  `${p.done.toLocaleString('en-US')}${p.total === null ? '' : `${of}${p.total.toLocaleString('en-US')}`}`;

/** The CLI's words (describeThrottle): "provider throttling, 7.5 req/s", the rate to a tenth. */
const throttleWords = (p: RunProgressJson) =>
  p.ratePerSecond === null ? 'provider throttling' : describeThrottle(p.ratePerSecond);

export function renderRunsList(view: {
  rows: readonly RunsListRow[];
  offset: number;
  total: number;
  next: string | null;
}): string {
  const rows = view.rows
    .map(
      (r) => `<tr class="run" data-run="${esc(r.id)}">
<td><a href="/admin/runs/${esc(encodeURIComponent(r.id))}">${esc(r.label)}</a><br><small>run ${esc(r.id)}</small></td>
<td>${esc(r.kind)}</td><td>${esc(r.actor ?? '—')}</td><td>${readableTime(r.startedAt)}</td>
<td>${stateBadge(r.progress)}</td><td class="num">${esc(doneOf(r.progress))}</td></tr>`,
    )
    .join('\n');
  const pager = view.next
    ? `<a id="next" href="/admin/runs?after=${esc(encodeURIComponent(view.next))}&amp;from=${view.offset + view.rows.length}">Older runs</a>`
    : '';
  return renderConsolePage({
    title: 'Runs',
    active: 'runs',
    body: `<h1>Runs</h1>
<p class="summary">Backfills, re-enrichments, undos and digests, newest first. <span id="range">${esc(rangeLabel(view.offset, view.rows.length, view.total))}</span> runs. A run is finished once every account it queued has an outcome.</p>
<div class="scroll"><table class="runs"><thead><tr><th>Run</th><th>Kind</th><th>Started by</th><th>Started</th><th>State</th><th class="num">Accounts done</th></tr></thead>
<tbody>
${rows || '<tr><td colspan="6">No runs yet.</td></tr>'}
</tbody></table></div>
<nav class="pager" aria-label="Pages">${view.offset > 0 ? '<a href="/admin/runs">Newest runs</a>' : ''}${pager}</nav>`,
  });
}

export interface RunFailure {
  crm: string;
  tenant: string;
  accountId: string;
  name: string | null;
  error: string;
}

/** The run page's live block: progress, counts, ETA, throttling, failures and the undo button. */
export function runProgressPanel(
  p: RunProgressJson,
  failures: readonly RunFailure[],
  undoable: boolean,
): string {
  const pct = p.total ? Math.min(100, Math.round((p.done / p.total) * 100)) : p.state === 'running' ? 0 : 100;
  const failureRows = failures
    .map(
      (f) =>
        `<tr><td><a href="/admin/history/${esc(encodeURIComponent(f.crm))}/${esc(encodeURIComponent(f.accountId))}?tenant=${esc(encodeURIComponent(f.tenant))}">${esc(f.name ?? f.accountId)}</a><br><small>${esc(f.crm)} ${esc(f.tenant)}</small></td><td>${esc(f.error)}</td></tr>`,
    )
    .join('');
  return `<section aria-labelledby="progress-h"><h2 id="progress-h">Progress</h2>
<p><span id="run-state">${stateBadge(p)}</span> <span id="run-throttled" class="badge warn"${p.throttled ? '' : ' hidden'}>${esc(throttleWords(p))}</span></p>
<progress id="run-bar" max="100" value="${pct}" aria-label="Accounts done">${pct}%</progress>
<div class="cards" aria-live="polite">
<div class="card"><div class="value" id="run-done">${esc(doneOf(p, ' of '))}</div>accounts done</div>
<div class="card"><div class="value" id="run-enriched">${p.enriched}</div>enriched</div>
<div class="card"><div class="value" id="run-review">${p.needsReview}</div>to review</div>
<div class="card"><div class="value" id="run-nomatch">${p.noMatch}</div>no match</div>
<div class="card"><div class="value" id="run-failed">${p.failed}</div>failed</div>
<div class="card"><div class="value" id="run-eta">${esc(etaWords(p.etaSeconds) || '—')}</div>time left (at ${p.perMinute ?? '—'} accounts/min so far)</div>
</div>
<h3>Failures</h3>
<div class="scroll"><table id="run-failures"><thead><tr><th>Account</th><th>Reason</th></tr></thead><tbody>${failureRows || '<tr><td colspan="2">None.</td></tr>'}</tbody></table></div>
${
  undoable
    ? `<h3>Undo</h3><p>Takes back what this run wrote: fields return to their value before it, its notes are removed; a value somebody changed since is kept. You see what it would do before it starts.</p>
<button type="button" id="undo">Undo this run…</button>
<p id="flash" role="status"></p>
<dialog id="undo-dialog" aria-labelledby="undo-title">
<h2 id="undo-title">Undo?</h2>
<ul id="undo-plan"></ul>
<p id="undo-more" hidden></p>
<ul id="undo-remarks"></ul>
<p><button type="button" class="primary" id="undo-yes">Yes, undo</button> <button type="button" id="undo-no">Cancel</button></p>
</dialog>`
    : ''
}
</section>`;
}

/**
 * Polls the run's progress every 3 s while it runs. The undo first asks for its dry run and names it in
 * a <dialog> (accounts, values going back, values kept, notes removed); only "Yes, undo" starts it.
 */
export function runPageScript(id: string): string {
  const url = JSON.stringify(`/admin/api/runs/${encodeURIComponent(id)}/progress`);
  const undoUrl = JSON.stringify(`/admin/api/runs/${encodeURIComponent(id)}/undo`);
  return `(function(){
var $=function(i){return document.getElementById(i)};
var fmt=function(n){return Number(n).toLocaleString('en-US')};
function eta(s){if(s===null)return '—';if(s<60)return 'under a minute';if(s<3600)return 'about '+Math.round(s/60)+' min';return 'about '+Math.round(s/360)/10+' h'}
function show(p){
  var b=$('run-state').firstElementChild;b.textContent=p.state;b.setAttribute('data-state',p.state);
  b.className='badge '+({running:'warn',finished:'ok',failed:'fail'})[p.state];
  $('run-done').textContent=fmt(p.done)+(p.total===null?'':' of '+fmt(p.total));
  $('run-enriched').textContent=p.enriched;$('run-review').textContent=p.needsReview;
  $('run-nomatch').textContent=p.noMatch;$('run-failed').textContent=p.failed;$('run-eta').textContent=eta(p.etaSeconds);
  $('run-throttled').hidden=!p.throttled;$('run-throttled').textContent=p.ratePerSecond===null?'provider throttling':'provider throttling, '+Math.round(p.ratePerSecond*10)/10+' req/s';
  var pct=p.total?Math.min(100,Math.round(p.done/p.total*100)):(p.state==='running'?0:100);$('run-bar').value=pct;$('run-bar').textContent=pct+'%';
}
function poll(){fetch(${url},{headers:{accept:'application/json'}}).then(function(r){return r.ok?r.json():null}).then(function(p){if(p){show(p);if(p.state==='running')setTimeout(poll,3000)}else setTimeout(poll,5000)}).catch(function(){setTimeout(poll,5000)})}
if($('run-state').firstElementChild.getAttribute('data-state')==='running')setTimeout(poll,3000);
var u=$('undo'),d=$('undo-dialog');if(u&&d){
  function say(t){$('flash').textContent=t}
  function item(list,t){var li=document.createElement('li');li.textContent=t;$(list).appendChild(li)}
  function post(body){return fetch(${undoUrl},{method:'POST',headers:{'content-type':'application/json',accept:'application/json'},body:JSON.stringify(body)}).then(function(r){return r.json().catch(function(){return {}}).then(function(j){return {ok:r.ok,j:j}})})}
  u.addEventListener('click',function(){
    u.disabled=true;say('Reading what the undo would change…');
    post({dryRun:true}).then(function(x){u.disabled=false;
      if(!x.ok){say('Cannot undo: '+((x.j&&x.j.message)||'try again'));return}
      var p=x.j,t=p.totals;say('');
      $('undo-title').textContent='Undo '+p.what+'?';
      $('undo-plan').textContent='';$('undo-remarks').textContent='';
      item('undo-plan',fmt(p.total)+' account'+(p.total===1?'':'s')+' it changed');
      item('undo-plan',fmt(t.restore)+' field value'+(t.restore===1?'':'s')+' go back to the value before');
      item('undo-plan',fmt(t.skip)+' kept: somebody changed them since');
      item('undo-plan',fmt(t.notes)+' note'+(t.notes===1?'':'s')+' removed');
      if(t.gone)item('undo-plan',fmt(t.gone)+' no longer in the CRM');
      $('undo-more').hidden=p.complete;$('undo-more').textContent=p.complete?'':'Counted over the first '+fmt(p.planned)+' accounts; the undo covers all '+fmt(p.total)+'.';
      (p.remarks||[]).forEach(function(r){item('undo-remarks',r)});
      d.showModal();$('undo-no').focus();
    }).catch(function(){u.disabled=false;say('Could not read the plan; try again')})});
  $('undo-no').addEventListener('click',function(){d.close();u.focus()});
  $('undo-yes').addEventListener('click',function(){$('undo-yes').disabled=true;
    post({}).then(function(x){$('undo-yes').disabled=false;d.close();
      if(x.ok&&x.j.runId){say('');var a=document.createElement('a');a.href='/admin/runs/'+encodeURIComponent(x.j.runId);a.id='undo-run';a.textContent='Undo started as run '+x.j.runId+': follow it';$('flash').appendChild(a);a.focus()}
      else say('Undo refused: '+((x.j&&x.j.message)||'try again'));
    }).catch(function(){$('undo-yes').disabled=false;d.close();say('Undo failed; try again')})});
}
})();`;
}
