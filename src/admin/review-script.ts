// The review page's script (review-page.ts), kept apart so the page's HTML reads in one sitting. It
// expands a row's candidates, asks before a bulk approve in the page's <dialog> (window.confirm
// cannot be styled, named or tested as a person meets it), and shows a re-search's new candidates in
// place: it polls the account's outcome until the queued job has recorded a newer one. Everything
// from the server is put in with textContent, never as HTML.
export const REVIEW_SCRIPT = `(function(){
var $ = function (id) { return document.getElementById(id); };
var flash = function (t) { $('flash').textContent = t; };
var sleep = function (ms) { return new Promise(function (r) { setTimeout(r, ms); }); };
async function post(path, body) {
  var res = await fetch('/admin/api/review/' + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  var json = await res.json().catch(function () { return {}; });
  if (!res.ok) { flash(json.message || 'failed'); return null; }
  return json;
}
var pickedBoxes = function () { return Array.from(document.querySelectorAll('input.pick:checked')); };
var pickAll = $('pick-all');
if (pickAll) pickAll.addEventListener('change', function (e) {
  document.querySelectorAll('input.pick:not(:disabled)').forEach(function (c) { c.checked = e.target.checked; });
});

// One approval waits for the dialog's answer at a time.
var dialog = $('approve-dialog');
var pending = null;
function ask(what, count, sample, run) {
  $('approve-what').textContent = what;
  var list = $('approve-sample');
  list.textContent = '';
  sample.slice(0, 10).forEach(function (s) {
    var li = document.createElement('li');
    li.textContent = (s.accountName || s.accountId) + ' → ' + s.buyerName + ' (' + Number(s.score).toFixed(2) + ')';
    list.appendChild(li);
  });
  $('approve-ok').textContent = 'Approve ' + count + (count === 1 ? ' account' : ' accounts');
  pending = run;
  dialog.returnValue = '';
  dialog.showModal();
}
if (dialog) dialog.addEventListener('close', function () {
  var run = pending;
  pending = null;
  if (dialog.returnValue === 'ok' && run) run(); else flash('Nothing approved');
});
function approved(r) {
  flash('Approved ' + r.approved + ' accounts (run ' + r.runId + ')' + (r.skipped && r.skipped.length ? '; ' + r.skipped.length + ' skipped' : ''));
}
function markDone(boxes) {
  boxes.forEach(function (c) {
    c.checked = false; c.disabled = true;
    var row = c.closest('tr');
    row.classList.add('done');
    var badge = row.querySelector('td.status .badge');
    badge.textContent = 'approved, being written';
  });
}
var sel = $('approve-selected');
if (sel) sel.addEventListener('click', async function () {
  var boxes = pickedBoxes();
  if (!boxes.length) return flash('Select accounts first');
  var accounts = boxes.map(function (c) { return JSON.parse(c.dataset.account); });
  var scores = boxes.map(function (c) { return Number(c.closest('tr').dataset.score); }).filter(function (n) { return n > 0; });
  var p = await post('approve', { accounts: accounts, preview: true });
  if (!p) return;
  if (!p.count) return flash('None of the selected accounts can be approved');
  var floor = scores.length ? Math.min.apply(null, scores).toFixed(2) : '—';
  ask('Approve the top candidate of ' + p.count + ' selected ' + (p.count === 1 ? 'account' : 'accounts') + '? Confidence floor ' + floor + ': the lowest best score among them. Each is written to its CRM.', p.count, p.sample, async function () {
    var r = await post('approve', { accounts: accounts });
    if (r) { approved(r); markDone(boxes); }
  });
});
var byFloor = $('approve-floor');
if (byFloor) byFloor.addEventListener('click', async function () {
  var filter = JSON.parse(document.querySelector('.bulk').dataset.filter);
  var floor = Number($('floor').value);
  var p = await post('approve', { filter: filter, floor: floor, preview: true });
  if (!p) return;
  if (!p.count) return flash('No account in this list has a candidate scoring ' + floor.toFixed(2) + ' or more');
  ask('Approve the top candidate of ' + p.count + (p.count === 1 ? ' account' : ' accounts') + ' whose best score is at least ' + floor.toFixed(2) + ' (the confidence floor)? Each is written to its CRM.', p.count, p.sample, async function () {
    var r = await post('approve', { filter: filter, floor: floor });
    if (r) approved(r);
  });
});

function confirmButton(account, c, name) {
  var b = document.createElement('button');
  b.type = 'button'; b.className = 'confirm'; b.textContent = 'Confirm';
  b.dataset.account = JSON.stringify(account); b.dataset.buyer = c.buyerId;
  b.setAttribute('aria-label', 'Confirm ' + c.name + ' for ' + name);
  return b;
}
/** The row and its candidates as the newer outcome says. */
function show(row, more, account, o) {
  row.dataset.updated = o.updatedAt;
  var name = row.querySelector('.name').textContent;
  var badge = row.querySelector('td.status .badge');
  badge.className = 'badge ' + o.status; badge.textContent = o.status.replace('_', ' ');
  row.querySelector('td.reason small').textContent = o.error || o.reason || '';
  var best = o.candidates[0];
  var cell = row.querySelector('td.best');
  cell.textContent = best ? best.name + ' (' + [best.stateCode, best.type].filter(Boolean).join(', ') + ') ' + best.score.toFixed(2) : (o.buyerName || 'no candidate');
  var top = row.querySelector('button.confirm.top');
  if (top && best && o.status === 'needs_review') top.dataset.buyer = best.buyerId;
  else if (top) top.remove();
  var list = more.querySelector('ol.candidates');
  list.textContent = '';
  o.candidates.forEach(function (c) {
    var li = document.createElement('li');
    li.appendChild(document.createTextNode(c.name + ' (' + [c.stateCode, c.type].filter(Boolean).join(', ') + ') — ' + c.score.toFixed(2) + ' '));
    if (o.status === 'needs_review') li.appendChild(confirmButton(account, c, name));
    list.appendChild(li);
  });
  var status = more.querySelector('.r-status');
  status.textContent = o.status === 'enriched' ? 'Matched ' + (o.buyerName || 'a buyer') + ' and written to the CRM'
    : o.status === 'needs_review' ? o.candidates.length + ' candidates found: choose one'
    : o.status === 'no_match' ? 'No buyer found for that name' : 'The search failed: ' + (o.error || 'try again');
}
async function research(b) {
  var more = b.closest('tr.more');
  var row = more.previousElementSibling;
  var account = JSON.parse(b.dataset.account);
  var name = more.querySelector('.r-name').value.trim(), state = more.querySelector('.r-state').value.trim();
  var status = more.querySelector('.r-status');
  var before = row.dataset.updated;
  var body = Object.assign({}, account);
  if (name) body.name = name;
  if (state) body.state = state;
  var r = await post('research', body);
  if (!r) return;
  flash('Queued job ' + r.jobId);
  status.textContent = 'Searching…';
  for (var i = 0; i < 120; i++) {
    await sleep(500);
    var res = await fetch('/admin/api/review/outcome?' + new URLSearchParams(account), { headers: { accept: 'application/json' } });
    if (!res.ok) continue;
    var o = await res.json();
    if (o.updatedAt !== before) return show(row, more, account, o);
  }
  status.textContent = 'Still searching: reload the page later to see the result';
}
document.addEventListener('click', async function (e) {
  var x = e.target.closest('button.expand');
  if (x) {
    var open = x.getAttribute('aria-expanded') !== 'true';
    x.setAttribute('aria-expanded', String(open));
    $(x.getAttribute('aria-controls')).hidden = !open;
    return;
  }
  var b = e.target.closest('tbody button[data-account]');
  if (!b) return;
  var account = JSON.parse(b.dataset.account);
  var r = null;
  if (b.classList.contains('research')) return research(b);
  if (b.classList.contains('confirm')) r = await post('confirm', Object.assign({}, account, { buyerId: b.dataset.buyer }));
  if (b.classList.contains('reject')) r = await post('reject', Object.assign({}, account, { reason: b.dataset.reason }));
  if (r) flash('Queued job ' + r.jobId);
});
})();`;
