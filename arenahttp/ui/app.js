// arena's dashboard: the HTTP API of package arenahttp, watched and driven
// from one page. Hand-written, no build step, nothing loaded from elsewhere.
//
// Everything the page keeps is bounded (the chart's points and marks, the
// event log), so that a day of chaos at hundreds of events a second neither
// grows the tab nor freezes it: events are counted as they come and drawn
// at most twice a second.
'use strict';
(function () {
  const $ = (id) => document.getElementById(id);
  const CHART_MS = 5 * 60 * 1000;  // the chart shows the last five minutes
  const MAX_POINTS = 2000;          // health changes kept
  const BUCKET_MS = 375;            // fault marks are kept per kind and chart pixel (800 across 5 minutes)
  const MAX_LOG = 1000;             // events kept for the log
  const LOG_ROWS = 200;             // of which shown at most
  const FAULT_ROWS = 100;           // active faults shown at most
  const HIST_PAGE = 50;
  const LAST_ID = 'arena.lastEventId'; // sessionStorage: where a reload resumes
  const EVENT_TYPES = ['arena.action.executed', 'arena.action.failed', 'arena.fault.recovered',
    'arena.fault.unrecovered', 'arena.fault.undecided', 'arena.fault.lifted', 'arena.health.changed', 'arena.run.completed',
    'arena.regression.completed'];

  let csrf = '';            // the session's CSRF token (none with a key header or no key)
  let es = null;            // the EventSource
  const st = {              // what the stream delivered, shown in the footer and on #conn
    lastId: 0, received: 0, missed: 0, repeated: 0, gaps: 0, resumedFrom: 0, firstId: 0,
    lastTime: 0, lastLocal: 0,
  };
  const health = [];        // {t, s}: s true healthy, false unhealthy, null not sampled
  const marks = new Map();  // 'kind bucket' → count: at most 4 kinds × 800 buckets in the window
  const log = [];           // {id, t, type, text, bad}
  let faults = [];          // GET /arena/faults
  let dirty = { chart: true, log: true };
  let logPaused = false;
  let run = { running: false };
  let histBefore = 0;       // the first action of the history page shown
  let histNewest = true;    // that page is the newest: kept current as actions come

  // ---- HTTP ----
  async function call(method, path, body) {
    const opt = { method, headers: {}, credentials: 'same-origin', cache: 'no-store' };
    if (body !== undefined) {
      opt.body = JSON.stringify(body);
      opt.headers['Content-Type'] = 'application/json';
    }
    if (method !== 'GET' && csrf) opt.headers['X-Arena-CSRF'] = csrf;
    let r;
    try {
      r = await fetch(path, opt);
    } catch (e) {
      return { status: 0, ok: false, data: { error: 'the server did not answer' }, headers: new Headers() };
    }
    let data = null;
    try { data = await r.json(); } catch (e) { /* not JSON */ }
    if (r.status === 401 && path !== '/arena/session') showLogin('the session ended: log in again');
    return { status: r.status, ok: r.ok, data, headers: r.headers };
  }
  const errText = (r) => (r.data && r.data.error) || ('HTTP ' + r.status);

  // ---- login ----
  function showLogin(msg) {
    stopStream();
    csrf = '';
    $('dash').hidden = true;
    $('logout').hidden = true;
    $('login').hidden = false;
    $('login-error').textContent = msg || '';
    setConn('closed', 'not connected');
  }

  $('login-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const input = $('login-key');
    const key = input.value;
    input.value = ''; // the key leaves the page with this request and is kept nowhere
    const r = await call('POST', '/arena/session', { key });
    if (r.status === 409) return boot(); // the server has no key
    if (!r.ok) {
      $('login-error').textContent = r.status === 401 ? 'wrong API key' : errText(r);
      return;
    }
    csrf = r.data.csrf_token || '';
    start();
  });

  $('logout').addEventListener('click', async () => {
    await call('DELETE', '/arena/session');
    sessionStorage.removeItem(LAST_ID);
    st.lastId = 0;
    showLogin('logged out');
  });

  async function boot() {
    const r = await call('GET', '/arena/session');
    if (r.status === 401) { showLogin(''); return; }
    if (!r.ok) { showLogin(errText(r)); return; }
    csrf = r.data.csrf_token || '';
    start();
  }

  function start() {
    $('login').hidden = true;
    $('dash').hidden = false;
    $('logout').hidden = !csrf;
    loadScenarios();
    refreshFaults();
    refreshRun();
    showHistory(0);
    openStream();
  }

  // ---- the event stream ----
  function setConn(cls, text) {
    const c = $('conn');
    c.className = 'conn ' + cls;
    c.textContent = text;
  }

  function openStream() {
    stopStream();
    const stored = Number(sessionStorage.getItem(LAST_ID) || 0);
    st.resumedFrom = st.lastId || stored; // 0: everything the server keeps
    st.firstId = 0;
    es = new EventSource('/arena/stream?last_event_id=' + st.resumedFrom);
    setConn('reconnecting', 'connecting…');
    es.onopen = () => { if (!st.gapNote) setConn('live', 'live'); };
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) { // refused (session ended, too many streams): not retried by the browser
        setConn('closed', 'disconnected');
        es = null;
        setTimeout(() => { if (!$('dash').hidden) boot(); }, 3000);
      } else {
        st.gapNote = '';
        setConn('reconnecting', 'reconnecting…');
      }
    };
    for (const t of EVENT_TYPES) es.addEventListener(t, onEvent);
    es.addEventListener('arena.stream.gap', onGap);
  }

  function stopStream() {
    if (es) es.close();
    es = null;
  }

  function saveLastId() {
    if (st.lastId) sessionStorage.setItem(LAST_ID, String(st.lastId));
  }
  window.addEventListener('pagehide', saveLastId);

  function onGap(e) {
    const g = JSON.parse(e.data);
    st.gaps++;
    st.gapNote = g.next > g.last_event_id + 1 ?
      'caught up after a gap: events ' + (g.last_event_id + 1) + '–' + (g.next - 1) + ' were no longer kept' :
      'caught up after a gap: the server started over';
    st.lastId = g.next - 1; // what follows is not missed by us
    setConn('gap', st.gapNote);
    refreshFaults();
    refreshRun();
  }

  function onEvent(e) {
    const id = Number(e.lastEventId);
    if (id <= st.lastId) st.repeated++;
    else if (st.lastId && id > st.lastId + 1) st.missed += id - st.lastId - 1;
    if (!st.firstId) st.firstId = id;
    st.lastId = Math.max(st.lastId, id);
    st.received++;
    const ev = JSON.parse(e.data);
    const d = ev.data || {};
    const t = Date.parse(ev.time);
    st.lastTime = t;
    st.lastLocal = performance.now();
    let text = '';
    let bad = false;
    switch (ev.type) {
      case 'arena.action.executed':
      case 'arena.action.failed':
        text = d.type + ' ' + (d.source_id ? d.source_id + '→' : '') + (d.target_id || '') +
          (d.success ? ' landed' : ' did not land: ' + d.error) + ' [' + d.action_id + ']';
        bad = !d.success;
        if (histNewest) refreshHistorySoon();
        if (d.success) {
          mark('land', t);
          refreshFaultsSoon();
        }
        break;
      case 'arena.fault.lifted':
        text = d.type + ' ' + d.target_id + ' lifted (' + d.why + ')' + (d.error ? ': ' + d.error : '') + ' [' + d.action_id + ']';
        mark('lift', t);
        dropFault(d.action_id);
        break;
      case 'arena.fault.recovered':
      case 'arena.fault.unrecovered': {
        const a = d.action || {};
        const ok = ev.type === 'arena.fault.recovered';
        text = a.type + ' ' + (a.target_id || '') + (ok ? ' recovered in ' + d.ttr : ' not recovered');
        bad = !ok;
        mark(ok ? 'recover' : 'lost', t);
        break;
      }
      case 'arena.fault.undecided': {
        const a = d.action || {};
        text = a.type + ' ' + (a.target_id || '') + ' undecided: the run ended before its verdict';
        break;
      }
      case 'arena.health.changed':
        text = (d.healthy ? 'healthy' : 'unhealthy: ' + d.reason) + ' (' + d.run_id + ')';
        bad = !d.healthy;
        keep(health, { t, s: d.healthy }, MAX_POINTS);
        if (!run.running || run.run_id !== d.run_id) refreshRun();
        break;
      case 'arena.run.completed':
        text = 'run completed: score ' + (d.measured ? d.total.toFixed(1) + ' ' + d.grade : 'no grade: ' + (d.ungraded || 'nothing was measured'));
        keep(health, { t, s: null }, MAX_POINTS);
        refreshRun();
        refreshFaults();
        break;
      default:
        text = ev.type;
    }
    keep(log, { id, t, type: ev.type, text, bad }, MAX_LOG);
    dirty.chart = dirty.log = true;
  }

  // keep appends to a bounded list, cutting in batches (no shift per item):
  // it holds from max to 1.25 max items.
  function keep(list, item, max) {
    list.push(item);
    if (list.length > max + max / 4) list.splice(0, list.length - max);
  }

  // mark counts a fault mark in its chart bucket; drawChart drops the
  // buckets that left the window, however many marks a second arrive.
  function mark(kind, t) {
    const k = kind + ' ' + Math.floor(t / BUCKET_MS);
    marks.set(k, (marks.get(k) || 0) + 1);
  }

  // ---- the chart ----
  const SVG = 'http://www.w3.org/2000/svg';
  const W = 800, TOP = 8, BAND = 110, AXIS = TOP + BAND + 22; // the viewBox is 800 × 170
  const chart = {};
  (function buildChart() {
    const svg = $('chart');
    const el = (name, attrs) => {
      const e = document.createElementNS(SVG, name);
      for (const k in attrs) e.setAttribute(k, attrs[k]);
      svg.appendChild(e);
      return e;
    };
    for (const k of ['unknown', 'healthy', 'unhealthy']) chart[k] = el('path', { class: k });
    el('line', { class: 'axis', x1: 0, x2: W, y1: TOP + BAND, y2: TOP + BAND });
    for (const k of ['land', 'lift', 'recover', 'lost']) chart[k] = el('path', { class: k });
    for (let i = 0; i <= 5; i++) {
      const x = Math.min(W - 20, i * W / 5);
      const tx = el('text', { x, y: AXIS + 10, 'text-anchor': i === 0 ? 'start' : 'middle' });
      tx.textContent = i === 5 ? 'now' : '−' + (5 - i) + ' min';
    }
    chart.note = el('text', { x: 6, y: TOP + 14 });
  })();

  function now() {
    return st.lastTime ? st.lastTime + (performance.now() - st.lastLocal) : Date.now();
  }

  function drawChart() {
    const end = now(), start = end - CHART_MS;
    const x = (t) => Math.max(0, Math.min(W, (t - start) / CHART_MS * W));
    const bands = { healthy: '', unhealthy: '', unknown: '' };
    for (let i = 0; i < health.length; i++) {
      const p = health[i];
      const t1 = i + 1 < health.length ? health[i + 1].t : end;
      if (t1 < start) continue;
      const x0 = x(p.t), w = x(t1) - x0;
      if (w <= 0) continue;
      const k = p.s === true ? 'healthy' : p.s === false ? 'unhealthy' : 'unknown';
      const top = p.s === false ? TOP + BAND / 2 : TOP;
      bands[k] += 'M' + x0.toFixed(1) + ' ' + top + 'h' + w.toFixed(1) + 'V' + (TOP + BAND) + 'h' + (-w).toFixed(1) + 'z';
    }
    for (const k in bands) chart[k].setAttribute('d', bands[k]);
    const shapes = { // at x: ▲ and ▼ under the band, ● and ✕ along its top
      land: (x) => 'M' + x.toFixed(1) + ' ' + (TOP + BAND + 2) + 'l-4 8h8z',
      lift: (x) => 'M' + x.toFixed(1) + ' ' + (TOP + BAND + 10) + 'l-4 -8h8z',
      recover: (x) => 'M' + (x - 3).toFixed(1) + ' ' + (TOP + 6) + 'a3 3 0 1 0 6 0a3 3 0 1 0 -6 0',
      lost: (x) => 'M' + (x - 3).toFixed(1) + ' ' + (TOP + 3) + 'l6 6m0 -6l-6 6',
    };
    const d = { land: '', lift: '', recover: '', lost: '' };
    let shown = 0;
    for (const k of marks.keys()) {
      const [kind, b] = k.split(' ');
      const t = (Number(b) + 0.5) * BUCKET_MS;
      if (t < start) { marks.delete(k); continue; }
      d[kind] += shapes[kind](x(t));
      shown++;
    }
    for (const k in d) chart[k].setAttribute('d', d[k]);
    chart.note.textContent = health.length ? '' : 'health is sampled during runs: start one';
    $('chart').dataset.marks = String(shown);
  }

  // ---- the event log ----
  // drawLog shows the newest events that pass the filter in the rows of
  // the table, made once and refilled (no new elements per draw).
  const logRows = [];
  function drawLog() {
    const needle = $('log-filter').value.toLowerCase();
    const kind = $('log-kind').value;
    const body = $('log-rows');
    let n = 0;
    for (let i = log.length - 1; i >= 0 && n < LOG_ROWS; i--) {
      const e = log[i];
      if (kind && !e.type.startsWith(kind)) continue;
      if (needle && !(e.type + ' ' + e.text).toLowerCase().includes(needle)) continue;
      if (n === logRows.length) logRows.push(row(['', '', '', '']));
      const tr = logRows[n++];
      tr.className = e.bad ? 'failed' : '';
      const c = tr.cells;
      c[0].textContent = e.id;
      c[1].textContent = e.clock || (e.clock = clock(e.t));
      c[2].textContent = e.type.replace('arena.', '');
      c[3].textContent = e.text;
      if (tr.parentNode !== body) body.appendChild(tr);
    }
    for (let i = n; i < logRows.length && logRows[i].parentNode; i++) logRows[i].remove();
    $('log-info').textContent = (logPaused ? 'paused · ' : '') + 'showing ' + n + ' of the last ' +
      log.length + ' events' + (log.length >= MAX_LOG ? ' (older ones: the action history below)' : '');
  }

  function row(cells, bad) {
    const tr = document.createElement('tr');
    if (bad) tr.className = 'failed';
    cells.forEach((c, i) => {
      const td = document.createElement('td');
      if (i === 0) td.className = 'num';
      if (c instanceof Node) td.appendChild(c); else td.textContent = c;
      tr.appendChild(td);
    });
    return tr;
  }
  const clock = (t) => new Date(t).toLocaleTimeString();

  $('log-filter').addEventListener('input', () => { drawLog(); });
  $('log-kind').addEventListener('change', () => { drawLog(); });
  $('log-pause').addEventListener('click', () => {
    logPaused = !logPaused;
    $('log-pause').textContent = logPaused ? 'Resume' : 'Pause';
    if (logPaused) $('log-info').textContent = 'paused · ' + $('log-info').textContent;
    else dirty.log = true; // drawn with the next frame of the page
  });

  // The action history, a page at a time through GET /arena/history.
  async function showHistory(before) {
    histNewest = !before;
    const q = before ? '?before=' + before + '&limit=' + HIST_PAGE : '?limit=' + HIST_PAGE;
    const r = await call('GET', '/arena/history' + q);
    if (!r.ok) return;
    const first = Number(r.headers.get('X-Arena-First'));
    const dropped = Number(r.headers.get('X-Arena-Dropped'));
    histBefore = first;
    const rows = r.data.map((res, i) => row([first + i, clock(Date.parse(res.started_at)), res.action.type,
      res.action.target_id || '', res.success ? 'landed' : 'did not land: ' + res.error], !res.success));
    $('hist-rows').replaceChildren(...rows.reverse());
    $('hist-info').textContent = r.data.length ? 'actions ' + first + '–' + (first + r.data.length - 1) +
      (dropped ? ' (' + dropped + ' older ones no longer kept)' : '') : 'no actions';
    $('hist-older').disabled = first <= dropped + 1;
  }
  let histTimer = 0;
  function refreshHistorySoon() { // at most every five seconds
    if (!histTimer) histTimer = setTimeout(() => { histTimer = 0; if (histNewest) showHistory(0); }, 5000);
  }
  $('hist-newest').addEventListener('click', () => showHistory(0));
  $('hist-older').addEventListener('click', () => showHistory(histBefore));

  // ---- active faults ----
  let faultTimer = 0;
  async function refreshFaults() {
    const r = await call('GET', '/arena/faults');
    if (r.ok) { faults = r.data; drawFaults(); }
  }
  // refreshFaultsSoon reads the list at most every two seconds while faults land.
  function refreshFaultsSoon() {
    if (!faultTimer) faultTimer = setTimeout(() => { faultTimer = 0; refreshFaults(); }, 2000);
  }
  function dropFault(id) {
    const n = faults.length;
    faults = faults.filter((f) => f.id !== id);
    if (faults.length !== n) drawFaults();
  }
  function drawFaults() {
    const rows = faults.slice(0, FAULT_ROWS).map((f) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = 'Lift';
      b.className = 'lift';
      b.dataset.id = f.id;
      return row([f.id, f.type, f.target_id, clock(Date.parse(f.start)), f.lift_at ? clock(Date.parse(f.lift_at)) : 'when lifted',
        f.origin + (f.run_id ? ' ' + f.run_id : ''), b]);
    });
    $('fault-rows').replaceChildren(...rows);
    $('fault-count').textContent = String(faults.length);
    $('fault-more').textContent = faults.length > FAULT_ROWS ? 'and ' + (faults.length - FAULT_ROWS) + ' more' : '';
    $('lift-all').disabled = faults.length === 0;
  }
  $('fault-rows').addEventListener('click', async (ev) => {
    const b = ev.target.closest('button.lift');
    if (!b) return;
    b.disabled = true;
    const r = await call('DELETE', '/arena/faults/' + encodeURIComponent(b.dataset.id));
    if (r.ok || r.status === 404) dropFault(b.dataset.id);
    else { b.disabled = false; $('run-error').textContent = 'lift: ' + errText(r); }
  });
  $('lift-all').addEventListener('click', async () => {
    $('lift-all').disabled = true;
    const r = await call('DELETE', '/arena/faults');
    if (!r.ok) $('run-error').textContent = 'lift all: ' + errText(r);
    refreshFaults();
  });

  // ---- runs ----
  async function loadScenarios() {
    const r = await call('GET', '/arena/scenarios');
    if (!r.ok) return;
    $('scenario').replaceChildren(...r.data.map((s) => {
      const o = document.createElement('option');
      o.value = s.name;
      o.textContent = s.name + ' (' + s.planned_length + ')';
      o.title = s.problem || s.description || '';
      o.disabled = !s.runnable;
      return o;
    }));
  }

  let runTimer = 0;
  async function refreshRun() {
    const r = await call('GET', '/arena/run');
    if (!r.ok) return;
    run = r.data;
    // A page that came in during a run knows its health before any change.
    if (run.running && typeof run.healthy === 'boolean' && (!health.length || health[health.length - 1].s === null)) {
      keep(health, { t: now(), s: run.healthy }, MAX_POINTS);
      dirty.chart = true;
    }
    drawRun();
    clearTimeout(runTimer);
    if (run.running) runTimer = setTimeout(refreshRun, 2000); // the score so far: polled while a run goes
  }
  function drawRun() {
    const s = run;
    $('run-stop').disabled = !(s.running && (s.origin === 'scenario' || s.origin === 'survival'));
    $('scenario-start').disabled = $('survival-start').disabled = !!s.running;
    $('run-progress').value = s.running ? s.progress : 0;
    $('run-status').textContent = s.running ?
      (s.origin === 'scenario' ? 'scenario ' + s.name : s.origin) + (s.seed ? ' · seed ' + s.seed : '') + ' · ' + dur(s.elapsed) + ' of ' +
        dur(s.duration) + ' · ' + s.active + ' faults open · score so far ' + score(s.score.measured ? s.score.total : null, s.score.grade) :
      'no run';
    const l = s.last;
    const p = $('run-last');
    p.replaceChildren();
    if (l) {
      p.append('last run: ' + (l.kind === 'scenario' ? 'scenario ' + l.name : 'survival') + ', seed ' + l.seed + ', ' +
        l.outcome + ', score ' + score(l.total, l.grade) + ' · ');
      const a = document.createElement('a');
      a.href = l.report;
      a.target = '_blank';
      a.rel = 'noopener';
      a.id = 'report-link';
      a.textContent = 'report';
      p.append(a);
    }
  }
  // dur shortens a Go duration ("12.345678s") to whole seconds ("12s", "3m4s").
  function dur(s) {
    const unit = { h: 3600, m: 60, s: 1, ms: 1e-3, us: 1e-6, 'µs': 1e-6, ns: 1e-9 };
    let sec = 0;
    for (const m of String(s).matchAll(/([0-9.]+)(h|ms|m|s|us|µs|ns)/g)) sec += Number(m[1]) * unit[m[2]];
    sec = Math.round(sec);
    const h = Math.floor(sec / 3600), m = Math.floor(sec % 3600 / 60), r = sec % 60;
    return (h ? h + 'h' : '') + (h || m ? m + 'm' : '') + r + 's';
  }
  const score = (total, grade) => total === null || total === undefined ? 'not measured' : total.toFixed(1) + ' (' + grade + ')';

  function started(r) {
    $('run-error').textContent = r.ok ? '' : errText(r);
    refreshRun();
  }
  $('scenario-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const seed = $('scenario-seed').value.trim();
    started(await call('POST', '/arena/scenario/start' + (seed ? '?seed=' + encodeURIComponent(seed) : ''), $('scenario').value));
  });
  $('survival-form').addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const cfg = {};
    const put = (id, key, num) => {
      const v = $(id).value.trim();
      if (v) cfg[key] = num ? Number(v) : v;
    };
    put('sv-duration', 'duration'); put('sv-interval', 'interval'); put('sv-seed', 'seed', true);
    put('sv-max-active', 'max_active_faults', true); put('sv-min-life', 'min_lifetime'); put('sv-max-life', 'max_lifetime');
    started(await call('POST', '/arena/survival', cfg));
  });
  $('run-stop').addEventListener('click', async () => {
    $('run-stop').disabled = true;
    const r = await call('POST', run.origin === 'scenario' ? '/arena/scenario/stop' : '/arena/survival/stop');
    if (!r.ok) $('run-error').textContent = 'stop: ' + errText(r);
    // The report is recorded as the run's goroutine ends: look again shortly.
    refreshRun();
    setTimeout(refreshRun, 500);
  });

  // ---- drawing, at most twice a second ----
  setInterval(() => {
    if ($('dash').hidden) return;
    if (dirty.chart || health.length || marks.size) { drawChart(); dirty.chart = false; }
    if (dirty.log && !logPaused) { drawLog(); dirty.log = false; }
    const c = $('conn');
    for (const k of ['lastId', 'received', 'missed', 'repeated', 'gaps', 'resumedFrom', 'firstId']) c.dataset[k] = String(st[k]);
    $('stream-info').textContent = 'stream: ' + st.received + ' events received, last #' + st.lastId +
      (st.resumedFrom ? ', resumed after #' + st.resumedFrom : '') + ', ' + st.missed + ' missed, ' + st.gaps + ' gaps';
  }, 500);
  setInterval(saveLastId, 1000);

  boot();
})();
