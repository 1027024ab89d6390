// gpu_stack observatory: live answers when the page is served by `gpu-stack serve`. Opened from file://
// (or from a plain static server) this file does nothing and the page answers what was exported. Served,
// the Calculator view also sends every change of an input to the server's resolver (POST /api/resolve,
// the same answer as `gpu-stack resolve --json`) and shows its answers beside the page's own, with the
// round-trip time. Exposes window.GStackLive for the tests.
(function () {
  'use strict';
  const C = window.GStackCore;
  const App = window.GStackApp;
  if (!C || !App || !/^https?:$/.test(location.protocol)) return;
  const V = (id) => App.model.variables[id];
  const live = { available: false, seq: 0, last: null };
  window.GStackLive = live;

  const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

  async function post(endpoint, body) {
    const res = await fetch('/api/' + endpoint, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    const answer = await res.json();
    if (!res.ok) throw new Error(answer.error + (answer.hint ? ' (' + answer.hint + ')' : ''));
    return answer;
  }
  live.post = post;

  // The request for one target under the preset on screen and the calculator's changed inputs. A bare
  // value is read in the variable's declared unit, which is what `scale` converts from.
  function request(target) {
    const overrides = App.calcOverrides();
    const assign = Object.keys(overrides).map((id) => V(id).name + '=' + String(overrides[id] / (V(id).scale || 1)));
    return { target: V(target).name, preset: [App.state.preset || App.scenario().name], assign };
  }

  function panel() {
    let p = document.getElementById('live-out');
    if (p) return p;
    const out = document.getElementById('calc-out');
    if (!out) return null;
    const h = document.createElement('h2');
    h.textContent = 'Answers from the server';
    p = document.createElement('div');
    p.id = 'live-out';
    p.setAttribute('aria-live', 'polite');
    out.after(h, p);
    return p;
  }

  async function resolveAll() {
    const seq = ++live.seq;
    const p = panel();
    if (!p) return;
    const targets = App.model.questions.map((q) => q.var);
    const t0 = performance.now();
    let answers;
    try {
      answers = await Promise.all(targets.map((t) => post('resolve', Object.assign(request(t), { trace: false }))));
    } catch (e) {
      if (seq === live.seq) p.textContent = 'The server could not answer: ' + e.message;
      return;
    }
    if (seq !== live.seq) return;  // a newer change is on its way
    const ms = performance.now() - t0;
    const page = App.calcValues();
    const rows = App.model.questions.map((q, i) => {
      const a = answers[i];
      const local = page[q.var];
      const rel = typeof a.value === 'number' && isFinite(local) && a.value !== 0 ? Math.abs(local - a.value) / Math.abs(a.value) : null;
      return '<tr><th scope="row">' + esc(q.label) + '</th><td class="num" data-var="' + V(q.var).name + '" data-value="' + String(a.value) + '">' +
        (a.complete ? C.formatQuantity(V(q.var), a.value) : 'unresolved (' + a.missing.length + ' missing)') + '</td><td class="num" data-rel="' + (rel === null ? '' : String(rel)) + '">' +
        (rel === null ? '-' : C.formatNumber(rel, 2)) + '</td></tr>';
    });
    p.innerHTML = '<table><thead><tr><th scope="col">Answer</th><th scope="col">Server (resolver)</th><th scope="col">Relative difference from this page</th></tr></thead><tbody>' +
      rows.join('') + '</tbody></table><p class="muted" id="live-time">Resolved on the server in ' + ms.toFixed(0) + ' ms.</p>';
    live.last = { ms, answers };
    document.body.dataset.liveMs = ms.toFixed(1);
    document.body.dataset.liveSeq = String(seq);
  }
  live.resolveAll = resolveAll;

  let timer = null;
  window.addEventListener('gstack:calc', () => {
    if (!live.available) return;
    clearTimeout(timer);
    timer = setTimeout(resolveAll, 60);
  });

  fetch('/api/health').then((r) => (r.ok ? r.json() : null)).then((h) => {
    if (!h || !h.ok) return;
    live.available = true;
    document.body.dataset.live = 'on';
    if (App.state.view === 'calc') resolveAll();
  }).catch(() => {});
})();
