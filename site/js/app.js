// gpu_stack observatory: the views. Reads window.GSTACK_DATA (written by `gpu-stack export site`) and
// window.GStackCore; exposes window.GStackApp for the WebMCP tools and the tests.
(function () {
  'use strict';
  const C = window.GStackCore;
  const D = window.GSTACK_DATA || {};
  const $ = (id) => document.getElementById(id);

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    if (attrs) for (const [k, v] of Object.entries(attrs)) {
      if (v === undefined || v === null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k === 'text') e.textContent = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const c of children.flat(Infinity)) if (c !== null && c !== undefined && c !== false) e.append(c.nodeType ? c : String(c));
    return e;
  }

  const missingData = ['model', 'scenarios', 'rootdebt', 'validation', 'experiments'].filter((k) => !D[k]);
  if (missingData.length || !C) {
    document.body.dataset.state = 'missing';
    $('status').textContent = 'The site data is missing (' + (missingData.join(', ') || 'core.js') + '). Export it with: gpu-stack export site --out DIR';
    return;
  }
  const t0 = performance.now();
  const model = D.model;
  C.indexModel(model);
  const scenarios = D.scenarios.scenarios;
  const V = (id) => model.variables[id];

  const state = { view: 'ask', preset: scenarios.length ? scenarios[0].name : '' };
  const scenario = () => scenarios.find((s) => s.name === state.preset) || scenarios[0];

  // ---- shared pieces

  const KIND_SHAPE = { equation: '\u25cf', 'root input': '\u25c6', constant: '\u25a0', assigned: '\u25b2' };
  function kindBadge(kind) {
    return el('span', { class: 'badge kind-' + kind.replace(' ', '-'), title: kind },
      el('span', { class: 'shape', 'aria-hidden': 'true' }, KIND_SHAPE[kind] || '\u25cb'), ' ', kind.toUpperCase());
  }
  const VERDICT_SHAPE = { pass: '\u2714', fail: '\u2716', inconclusive: '?', 'not run': '\u25cb' };
  function verdictBadge(v) {
    const k = VERDICT_SHAPE[v] ? v : 'inconclusive';
    return el('span', { class: 'badge verdict-' + k.replace(' ', '-'), 'data-verdict': v },
      el('span', { class: 'shape', 'aria-hidden': 'true' }, VERDICT_SHAPE[k]), ' ', String(v).toUpperCase());
  }
  function valueOf(id) {
    const s = scenario();
    const x = s && s.values ? s.values[id] : undefined;
    if (typeof x === 'number') return x;
    const v = V(id);
    return v.kind === 'constant' ? v.value : undefined;
  }
  // A variable's math symbol (`symbol "MFU"` in the model) beside its dotted name, where it has one.
  function symbolOf(v) {
    return v.sym ? el('span', { class: 'sym', title: 'symbol of ' + v.name }, ' (' + v.sym + ')') : null;
  }
  function varLink(id, label) {
    return el('a', { href: C.formatHash({ view: 'cone', var: V(id).name, preset: state.preset }), class: 'var' }, label || V(id).name);
  }
  function table(headers, rows, caption) {
    return el('div', { class: 'table-wrap' }, el('table', null,
      caption ? el('caption', null, caption) : null,
      el('thead', null, el('tr', null, headers.map((h) => el('th', { scope: 'col' }, h)))),
      el('tbody', null, rows.map((r) => el('tr', null, r.map((c, i) => (i === 0 ? el('th', { scope: 'row' }, c) : el('td', null, c))))))));
  }
  function announce(msg) { $('status').textContent = msg; }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); return node; }

  // ---- Ask

  function renderAsk() {
    const s = scenario();
    const qbox = clear($('ask-questions'));
    const current = state.q || model.questions[0].key;
    for (const q of model.questions) {
      qbox.append(el('button', {
        type: 'button', class: 'chip', 'aria-pressed': String(q.key === current), 'data-q': q.key,
        onclick: () => navigate({ q: q.key }),
      }, q.label));
    }
    const q = model.questions.find((x) => x.key === current) || model.questions[0];
    const t = s.targets.find((x) => x.var === q.var);
    const v = V(q.var);
    const ans = clear($('ask-answer'));
    ans.append(el('p', { class: 'q' }, q.label, ' (', el('code', null, v.name), symbolOf(v), ') under preset ', el('code', null, s.name)));
    if (t && typeof t.value === 'number') {
      ans.append(el('p', { class: 'big', id: 'answer-value', 'data-var': v.name, 'data-value': String(t.value), title: C.siText(v, t.value) }, C.formatQuantity(v, t.value)));
      if (t.interval) {
        ans.append(el('p', { id: 'answer-interval', 'data-p5': String(t.interval.p5), 'data-p95': String(t.interval.p95) },
          '90% interval: ', C.formatQuantity(v, t.interval.p5), ' to ', C.formatQuantity(v, t.interval.p95),
          ' (median ', C.formatQuantity(v, t.interval.median), '; ', String(t.interval.samples), ' Monte Carlo samples, seed 1)'));
      } else {
        ans.append(el('p', { id: 'answer-interval', class: 'muted' }, 'Interval: none. This preset gives no input a range, so the answer is a point value.'));
      }
      if (t.violations) ans.append(el('p', { class: 'warn' }, '\u26a0 ', String(t.violations), ' constraint or validity check(s) violated; see gpu-stack resolve --constraints.'));
    } else {
      ans.append(el('p', { class: 'big', id: 'answer-value', 'data-var': v.name, 'data-value': '' }, 'unresolved'));
      ans.append(el('p', { id: 'answer-interval', class: 'muted' }, 'Interval: none, because the answer is unresolved.'));
      const miss = (t && t.missing) || [];
      ans.append(el('p', null, 'The preset leaves ', String(miss.length), ' input(s) unassigned, so the answer is a formula in them:'));
      ans.append(el('ul', null, miss.slice(0, 20).map((m) => el('li', null, varLink(m)))));
    }
    ans.append(el('p', null, el('a', { href: C.formatHash({ view: 'cone', var: v.name, preset: state.preset }) }, 'Browse what it is made of'), ' \u00b7 ',
      el('a', { href: C.formatHash({ view: 'trace', from: 'physics.speed_of_light', to: v.name, preset: state.preset }) }, 'Trace it down to physics')));

    const bd = clear($('ask-breakdown'));
    const b = C.breakdownRows(model, s);
    if (!b) {
      bd.append(el('p', { class: 'muted' }, (s.breakdown && s.breakdown.note) || 'No breakdown: the total cost is not computable under this preset.'));
    } else {
      const tv = V(s.breakdown.total_var);
      const rows = b.rows.map((r) => [varLink(r.var), el('span', { class: 'num', 'data-value': String(r.value), title: C.siText(V(r.var), r.value) }, C.formatQuantity(V(r.var), r.value)),
        el('span', { class: 'bar-cell' }, el('span', { class: 'bar', style: 'width:' + Math.max(0, Math.min(100, 100 * (r.share || 0))).toFixed(1) + '%' }),
          el('span', null, r.share === null ? '' : C.formatNumber(100 * r.share, 3) + '%'))]);
      rows.push([el('strong', null, 'Sum of the parts'), el('strong', { class: 'num', id: 'breakdown-sum', 'data-value': String(b.sum) }, C.formatQuantity(tv, b.sum)), '']);
      rows.push([varLink(s.breakdown.total_var, 'Total (' + tv.name + ')'), el('strong', { class: 'num', id: 'breakdown-total', 'data-value': String(b.total) }, C.formatQuantity(tv, b.total)),
        el('span', { id: 'breakdown-check', 'data-equal': String(b.equal) }, b.equal ? '\u2714 the parts add up to the total' : '\u2716 the parts do not add up')]);
      bd.append(table(['Part', 'Value', 'Share'], rows, 'Direct terms of ' + model.relations[s.selected[s.breakdown.total_var]].name));
    }
  }

  // ---- Cone browser

  function coneRow(id, depth, path) {
    const s = scenario();
    const v = V(id);
    const kind = C.kindOf(model, s, id);
    const rel = kind === 'equation' ? C.relationFor(model, s, id) : null;
    const children = C.coneChildren(model, s, id);
    const key = path.concat(id).join('/');
    const open = state.open.has(key);
    const val = valueOf(id);
    const li = el('li', { role: 'treeitem', 'aria-level': String(depth + 1), 'aria-expanded': children.length ? String(open) : null, 'data-var': v.name });
    const head = el('div', { class: 'node' },
      children.length
        ? el('button', { type: 'button', class: 'toggle', 'aria-label': (open ? 'Collapse ' : 'Expand ') + v.name, 'aria-expanded': String(open),
          onclick: () => { if (open) { for (const k of [...state.open]) if (k === key || k.startsWith(key + '/')) state.open.delete(k); } else state.open.add(key); syncOpen(); renderCone(); } },
        open ? '\u2212' : '+')
        : el('span', { class: 'toggle leaf', 'aria-hidden': 'true' }, '\u00b7'),
      el('code', { class: 'name' }, v.name), symbolOf(v), ' ', kindBadge(kind), ' ',
      el('span', { class: 'num', 'data-value': val === undefined ? '' : String(val), title: val === undefined ? null : C.siText(v, val) }, val === undefined ? 'unresolved' : C.formatQuantity(v, val)));
    const detail = el('div', { class: 'detail' },
      v.desc ? el('p', null, v.desc) : null,
      rel ? el('p', null, el('span', { class: 'muted' }, rel.role + ' ' + rel.name + (rel.key ? ' [' + rel.key + ']' : '') + ': '), el('code', null, rel.text)) : null,
      kind === 'assigned' && v.defs && v.defs.length ? el('p', { class: 'muted' }, 'Assigned by the preset (overrides ', model.relations[v.defs[0]].name, ').') : null,
      el('p', { class: 'muted' }, 'unit ', el('code', null, v.unit || '1'), ' \u00b7 system ', model.systems[v.sys] ? model.systems[v.sys].name : '?', ' \u00b7 source ', el('code', null, rel ? rel.loc : v.loc),
        v.refs && v.refs.length ? ' \u00b7 refs ' + v.refs.map((r) => model.refs[r].name).join(', ') : ''));
    li.append(head, detail);
    if (children.length && open) {
      const ul = el('ul', { role: 'group' });
      const shown = children.slice(0, 60);
      for (const c of shown) ul.append(coneRow(c, depth + 1, path.concat(id)));
      if (children.length > shown.length) ul.append(el('li', { class: 'muted' }, '+' + (children.length - shown.length) + ' more dependencies not shown.'));
      li.append(ul);
    }
    return li;
  }
  function syncOpen() {
    state.openParam = [...state.open].join(',');
    history.replaceState(null, '', C.formatHash(hashState()));
  }
  function renderCone() {
    const v = C.varByName(model, state.var || 'econ.cost.per_token') || V(model.questions[0].var);
    const tree = clear($('cone-tree'));
    const ul = el('ul', { role: 'group', class: 'root' });
    ul.append(coneRow(v.id, 0, []));
    tree.append(ul);
    const legend = clear($('kind-legend'));
    for (const k of ['equation', 'root input', 'constant', 'assigned']) legend.append(kindBadge(k), ' ');
  }
  function renderSearch() {
    const q = $('cone-search').value;
    const box = clear($('cone-results'));
    for (const v of C.searchVariables(model, q, 12))
      box.append(el('li', null, el('a', { href: C.formatHash({ view: 'cone', var: v.name, preset: state.preset }) }, v.name), ' ', el('span', { class: 'muted' }, v.desc || '')));
  }

  // ---- Root debt

  function renderDebt() {
    const rd = D.rootdebt;
    const fams = rd.families.slice(0, 15);
    const top = fams.length ? fams[0].weight : 1;
    clear($('debt-families')).append(table(['Family', 'Blast radius', 'Roots', 'Heaviest members'], fams.map((f) => [
      el('code', null, f.family),
      el('span', { class: 'bar-cell' }, el('span', { class: 'bar', style: 'width:' + (100 * f.weight / top).toFixed(1) + '%' }), el('span', { class: 'num' }, String(f.weight))),
      String(f.roots), el('span', null, f.members.slice(0, 3).map((m, i) => [i ? ', ' : '', varLink(m)]))]), 'Top ' + fams.length + ' of ' + rd.families.length + ' families'));
    const inf = scenario().influence.rows;
    clear($('debt-influence')).append(inf.length ? table(['Input', 'Status', 'Elasticity', 'Blast radius'], inf.slice(0, 15).map((r) => [
      varLink(r.var), r.status,
      el('span', { class: 'num', 'data-value': String(r.elasticity) }, r.elasticity === null ? 'blocks' : C.formatNumber(r.elasticity, 4)), String(r.dependents)]),
      'A 1% change in the input changes cost per token by elasticity %') : el('p', { class: 'muted' }, 'Influence was not computed for this preset.'));
    clear($('debt-roots')).append(table(['Root input', 'Dependents', 'Family', 'Assigned here?'], rd.roots.slice(0, 40).map((r) => [
      varLink(r.var), String(r.dependents), el('code', null, r.family), C.kindOf(model, scenario(), r.var) === 'assigned' ? kindBadge('assigned') : kindBadge('root input')]),
    'Top 40 of ' + rd.roots.length + ' root inputs'));
  }

  // ---- Trace

  function renderTrace() {
    const from = state.from || 'physics.speed_of_light';
    const to = state.to || 'econ.cost.per_token';
    $('trace-from').value = from;
    $('trace-to').value = to;
    const list = clear($('trace-path'));
    const a = C.varByName(model, from);
    const b = C.varByName(model, to);
    if (!a || !b) {
      list.append(el('li', { class: 'warn' }, 'Unknown variable: ' + (!a ? from : to)));
      return;
    }
    let hops = C.tracePath(model, scenario(), a.id, b.id, { live: true });
    const live = !!hops;
    if (!hops) hops = C.tracePath(model, scenario(), a.id, b.id);
    const note = $('trace-note');
    note.textContent = '';
    if (hops && !live) {
      const cut = hops.filter((h) => C.kindOf(model, scenario(), h.var) === 'assigned').map((h) => V(h.var).name);
      note.textContent = 'Under preset ' + state.preset + ' this chain is cut' + (cut.length ? ': ' + cut.slice(0, 3).join(', ') + (cut.length > 1 ? ' are' : ' is') + ' assigned' : '') +
        ', so a change in ' + from + ' does not reach ' + to + '. The chain below is the model\u2019s, not this preset\u2019s.';
    }
    note.dataset.live = String(live);
    if (!hops) {
      list.append(el('li', { class: 'warn', id: 'trace-none' }, 'No chain of relations leads from ' + from + ' to ' + to + '.'));
      return;
    }
    hops.forEach((h, i) => {
      const v = V(h.var);
      const val = valueOf(h.var);
      const kind = C.kindOf(model, scenario(), h.var);
      const rel = h.rel === null ? null : model.relations[h.rel];
      list.append(el('li', { class: 'hop', 'data-var': v.name },
        el('div', null, el('span', { class: 'hopn' }, 'hop ' + i), ' ', varLink(h.var), symbolOf(v), ' ', kindBadge(kind), ' ',
          el('span', { class: 'num', 'data-value': val === undefined ? '' : String(val) }, val === undefined ? 'unresolved' : C.formatQuantity(v, val))),
        rel ? el('div', { class: 'via' }, '\u2193 read by ', el('code', null, rel.name), ': ', el('code', null, rel.text)) : null));
    });
    announce(hops.length - 1 + ' hops from ' + from + ' to ' + to + '.');
  }

  // ---- Calculator

  const calc = { overrides: {} };
  function calcInput(inp) {
    const v = V(inp.var);
    const idn = 'calc-in-' + inp.var;
    const base = calc.overrides[inp.var] !== undefined ? calc.overrides[inp.var] : inp.base;
    const shown = base === null ? '' : String(Number(C.toDisplay(v, base).toPrecision(12)));
    return el('div', { class: 'field' },
      el('label', { for: idn }, el('code', null, v.name), ' ', el('span', { class: 'muted' }, '[' + (v.unit || '1') + ']')),
      el('input', { id: idn, type: 'text', inputmode: 'decimal', value: shown, 'data-var': v.name, disabled: inp.constant ? true : null,
        'aria-describedby': idn + '-d',
        oninput: (e) => {
          const x = Number(e.target.value);
          if (e.target.value.trim() === '' || !isFinite(x)) { e.target.setAttribute('aria-invalid', 'true'); return; }
          e.target.removeAttribute('aria-invalid');
          calc.overrides[inp.var] = C.fromDisplay(v, x);
          renderCalcOut();
        } }),
      el('span', { id: idn + '-d', class: 'muted small' }, v.desc || ''));
  }
  function renderCalc() {
    const s = scenario();
    const main = clear($('calc-main'));
    const other = clear($('calc-other'));
    for (const inp of s.calculator.inputs) {
      if (inp.constant) continue;
      (inp.main ? main : other).append(calcInput(inp));
    }
    if (!main.firstChild) main.append(el('p', { class: 'muted' }, 'This preset assigns none of the main inputs; see all inputs below.'));
    renderCalcOut();
  }
  function calcValues() { return C.runCalculator(scenario().calculator, calc.overrides); }
  function renderCalcOut() {
    const s = scenario();
    let vals;
    try { vals = calcValues(); } catch (e) { clear($('calc-out')).append(el('p', { class: 'warn' }, 'The calculator failed: ' + e.message)); return; }
    const rows = model.questions.map((q) => [q.label, el('span', { class: 'num', 'data-var': V(q.var).name, 'data-value': String(vals[q.var]), title: C.siText(V(q.var), vals[q.var]) }, C.formatQuantity(V(q.var), vals[q.var]))]);
    if (s.breakdown) rows.push(['Run cost', el('span', { class: 'num', 'data-var': V(s.breakdown.total_var).name, 'data-value': String(vals[s.breakdown.total_var]) }, C.formatQuantity(V(s.breakdown.total_var), vals[s.breakdown.total_var]))]);
    clear($('calc-out')).append(table(['Answer', 'Value'], rows));
    window.dispatchEvent(new Event('gstack:calc'));  // js/live.js re-resolves on the server when served
    const err = s.calculator.max_relative_error_vs_resolver;
    $('calc-check').textContent = Object.keys(calc.overrides).length
      ? Object.keys(calc.overrides).length + ' input(s) changed from the preset.'
      : 'At the preset\u2019s values these programs agree with the resolver to ' + C.formatNumber(err, 2) + ' (relative).';
  }

  // ---- Validation

  function renderValidation() {
    const body = clear($('val-body'));
    const val = D.validation;
    if (!val.available) {
      body.append(el('p', { class: 'empty', id: 'val-empty' }, 'No validation data: ' + val.reason + '. Export the site with --runs FILE.csv (the columns of data/runs/calibration-runs.csv).'));
      return;
    }
    const r = val.report;
    const sumRows = Object.keys(r.summary).map((m) => {
      const a = r.summary[m];
      const t = r.summary_tier_a[m];
      return [m, String(a.n), C.formatNumber(a.median_ape, 4) + '%', C.formatNumber(a.mean_ape, 4) + '%', t ? String(t.n) : '0', t ? C.formatNumber(t.median_ape, 4) + '%' : '-'];
    });
    body.append(el('p', null, String(r.rows_read), ' runs read from ', el('code', null, r.runs), '.'));
    body.append(table(['Metric', 'n', 'Median APE', 'Mean APE', 'n tier A', 'Median APE tier A'], sumRows, 'Error summary'));
    const rows = [];
    for (const row of r.rows) {
      if (!row.built) { rows.push([row.id, row.tier || '', 'not built', '', '', row.reason || '']); continue; }
      for (const m of row.metrics)
        rows.push([row.id, row.tier || '', m.metric, C.formatNumber(m.reported) + ' ' + (m.unit || ''), C.formatNumber(m.predicted) + ' ' + (m.unit || ''), C.formatNumber(m.ape, 3) + '%' + (m.throughput ? ' \u2605' : '')]);
    }
    body.append(table(['Run', 'Tier', 'Metric', 'Reported', 'Predicted', 'APE'], rows, 'Every comparison (\u2605 marks each run\u2019s primary throughput comparison)'));
  }

  // ---- Experiments

  function renderExperiments() {
    const body = clear($('exp-body'));
    const exps = D.experiments.experiments;
    if (!exps.length) { body.append(el('p', { class: 'empty' }, 'No experiment protocols were found.')); return; }
    for (const e of exps) {
      const p = e.protocol || {};
      const card = el('article', { class: 'exp', id: 'exp-' + e.id, 'data-experiment': e.id },
        el('h2', null, e.id, ' ', verdictBadge(e.verdict), ' ', p.title || ''),
        p.question ? el('p', null, el('strong', null, 'Question: '), p.question) : null,
        p.hypothesis ? el('p', null, el('strong', null, 'Hypothesis: '), p.hypothesis) : null,
        e.error ? el('p', { class: 'warn' }, e.error) : el('p', { class: 'muted' }, 'Protocol frozen, hash ', el('code', null, (e.protocol_hash || '').slice(0, 16) + '\u2026')));
      if (p.falsifiers && p.falsifiers.length)
        card.append(table(['Gate (falsifier)', 'Metric', 'Rule', 'Meaning'], p.falsifiers.map((f) => [el('code', null, f.falsifier_id), f.metric,
          f.op + ' ' + (f.threshold !== undefined ? f.threshold : '') + (f.upper_threshold !== undefined ? ' .. ' + f.upper_threshold : ''), f.description]), 'Frozen gates'));
      if (!e.artifacts.length) card.append(el('p', { class: 'empty' }, 'Not run: no run artifact was found for this experiment.'));
      for (const a of e.artifacts) {
        const runs = a.runs.map((r) => [r.policy || r.run_id, verdictBadge(r.verdict || 'inconclusive'), r.conclusion,
          r.falsifiers.map((f) => (f.survived === true ? '\u2714 ' : f.survived === false ? '\u2716 ' : '? ') + f.falsifier_id).join('; ')]);
        card.append(el('div', { class: 'artifact' },
          el('h3', null, 'Artifact ', el('code', null, (a.artifact_sha256 || '').slice(0, 16) + '\u2026'), ' ', verdictBadge(a.verdict)),
          el('p', { class: 'muted' }, 'from ', a.origin, ' \u00b7 seal ', a.seal_valid ? 'valid' : 'INVALID', ' \u00b7 protocol ', a.protocol_matches ? 'matches the frozen one' : 'differs from the frozen one',
            a.conclusion ? ' \u00b7 conclusion ' + a.conclusion : ''),
          runs.length ? table(['Policy', 'Verdict', 'Conclusion', 'Gates (\u2714 survived, \u2716 falsified, ? not reported)'], runs) : null));
      }
      body.append(card);
    }
  }

  // ---- routing

  function hashState() {
    const h = { view: state.view, preset: state.preset };
    if (state.view === 'ask') h.q = state.q;
    if (state.view === 'cone') { h.var = state.var; h.open = state.openParam; }
    if (state.view === 'trace') { h.from = state.from; h.to = state.to; }
    return h;
  }
  const renderers = { ask: renderAsk, cone: renderCone, debt: renderDebt, trace: renderTrace, calc: renderCalc, validation: renderValidation, experiments: renderExperiments };
  // Views other modules add (charts-view.js: charts, compare), drawn with this page's context.
  const viewContext = { model, scenarios, data: D, state, el, table, clear, varLink, announce, navigate, scenario };
  for (const [name, draw] of Object.entries(window.GStackViews || {})) renderers[name] = () => draw(viewContext);
  function applyHash() {
    const h = C.parseHash(location.hash);
    const presetChanged = h.preset && h.preset !== state.preset && scenarios.some((s) => s.name === h.preset);
    if (presetChanged) { state.preset = h.preset; calc.overrides = {}; }
    state.view = h.view;
    state.q = model.questions.some((q) => q.key === h.q) ? h.q : undefined;
    if (h.var !== state.var) { state.open = new Set(); }
    state.var = h.var && C.varByName(model, h.var) ? h.var : undefined;
    state.openParam = h.open || '';
    state.open = new Set((h.open || '').split(',').filter(Boolean));
    if (state.view === 'cone' && state.var && !state.open.size) {
      const id = C.varByName(model, state.var).id;
      state.open.add(String(id));
    }
    state.from = h.from;
    state.to = h.to;
    render();
  }
  function render() {
    $('preset').value = state.preset;
    for (const sec of document.querySelectorAll('.view')) sec.hidden = sec.dataset.view !== state.view;
    for (const a of document.querySelectorAll('.tabs a')) {
      if (a.dataset.view === state.view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
      a.href = C.formatHash({ view: a.dataset.view, preset: state.preset });
    }
    const tab = document.querySelector('.tabs a[data-view="' + state.view + '"]');
    announce((tab ? tab.textContent : state.view) + ' view, preset ' + state.preset + '.');
    renderers[state.view]();
    document.body.dataset.view = state.view;
  }
  function navigate(patch) {
    Object.assign(state, patch);
    const h = C.formatHash(hashState());
    if (location.hash !== h) location.hash = h; else render();
  }

  // ---- start

  const sel = $('preset');
  for (const s of scenarios) sel.append(el('option', { value: s.name }, s.name));
  sel.addEventListener('change', () => { calc.overrides = {}; navigate({ preset: sel.value }); });
  $('cone-search').addEventListener('input', renderSearch);
  $('cone-search').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    const first = C.searchVariables(model, e.target.value, 1)[0];
    if (first) navigate({ view: 'cone', var: first.name, openParam: String(first.id) });
  });
  $('trace-form').addEventListener('submit', (e) => { e.preventDefault(); navigate({ view: 'trace', from: $('trace-from').value.trim(), to: $('trace-to').value.trim() }); });
  $('calc-reset').addEventListener('click', () => { calc.overrides = {}; renderCalc(); announce('Calculator reset to the preset.'); });
  const names = $('var-names');
  for (const v of model.variables) names.append(el('option', { value: v.name }));
  window.addEventListener('hashchange', applyHash);
  applyHash();
  const ms = performance.now() - t0;
  document.body.dataset.state = 'ready';
  document.body.dataset.loadMs = ms.toFixed(1);
  document.body.dataset.readyAt = performance.now().toFixed(1);  // since navigation start
  announce('Ready. ' + model.variables.length + ' variables and ' + model.relations.length + ' relations loaded in ' + ms.toFixed(0) + ' ms.');
  $('provenance').textContent = 'Generated by gpu-stack export site from ' + model.image + ' (' + model.stats.variables + ' variables, ' + model.stats.relations + ' relations, ' + model.stats.root_inputs + ' root inputs). Presets: ' + scenarios.map((s) => s.name).join(', ') + '.';

  window.GStackApp = {
    model, scenarios, data: D, state, navigate, announce, scenario, valueOf, calcValues,
    calcOverrides() { return Object.assign({}, calc.overrides); },
    setCalcInputs(overrides) { calc.overrides = Object.assign({}, overrides); if (state.view === 'calc') renderCalc(); },
  };
  window.dispatchEvent(new Event('gstack:ready'));
})();
