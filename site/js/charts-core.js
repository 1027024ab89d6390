// gpu_stack observatory: shaping the exported results into chart data (no DOM, no Chart.js). Classic script
// so it loads from file://; under Node it is a CommonJS module, tested by tests/site/charts.test.js.
// Every value stays in SI base units here; only quoted() and the formatters turn them into the units
// people quote (presets/display_units.toml, exported per variable as `ladder`).
(function (root) {
  'use strict';
  const C = root.GStackCore || (typeof require === 'function' ? require('./core.js') : null);

  // ---- units people quote

  const quoted = C.quoted;
  const siText = C.siText;
  const formatQuoted = C.formatQuantity;
  // A factor that turns base values into one rung for a whole axis (the rung of its largest magnitude).
  function axisUnit(v, values) {
    const finite = values.filter((x) => typeof x === 'number' && isFinite(x));
    const big = finite.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    const q = quoted(v, big || 1);
    const scale = big ? big / q.value : (v && v.scale) || 1;
    return { unit: q.unit, scale };
  }

  // ---- the distribution: histogram bars, marked inside or outside the 90% interval

  function histogramBars(dist) {
    const bars = [];
    for (let i = 0; i < dist.counts.length; i++) {
      const lo = dist.edges[i];
      const hi = dist.edges[i + 1] !== undefined ? dist.edges[i + 1] : lo;
      const mid = (lo + hi) / 2;
      bars.push({ lo, hi, mid, count: dist.counts[i], inside: mid >= dist.p5 && mid <= dist.p95 });
    }
    const total = bars.reduce((s, b) => s + b.count, 0);
    return { bars, total };
  }

  // ---- the tornado: Sobol total-order indices where the preset has uncertain inputs, else elasticities

  function tornadoRows(charts, scenario, limit) {
    const n = limit || 12;
    if (charts && charts.sobol && !charts.sobol.error && charts.sobol.inputs.length) {
      const rows = charts.sobol.inputs.map((r) => ({ var: r.var, value: r.total, first: r.first, elasticity: r.elasticity }));
      rows.sort((a, b) => Math.abs(b.value) - Math.abs(a.value));
      return { kind: 'sobol', label: 'Sobol total-order index', rows: rows.slice(0, n) };
    }
    const inf = (scenario && scenario.influence && scenario.influence.rows) || [];
    const rows = inf.filter((r) => typeof r.elasticity === 'number' && isFinite(r.elasticity) && r.elasticity !== 0)
      .map((r) => ({ var: r.var, value: r.elasticity }));
    rows.sort((a, b) => Math.abs(b.value) - Math.abs(a.value));
    return { kind: 'elasticity', label: 'Elasticity (d ln y / d ln x)', rows: rows.slice(0, n) };
  }

  // ---- the plan: candidates and their Pareto front (more throughput, less memory per GPU)

  function paretoFront(cands) {
    const sorted = cands.filter((c) => isFinite(c.throughput) && isFinite(c.memory))
      .slice().sort((a, b) => a.memory - b.memory || b.throughput - a.throughput);
    const front = [];
    let best = -Infinity;
    for (const c of sorted) if (c.throughput > best) { front.push(c); best = c.throughput; }
    return front;
  }

  // ---- the cost waterfall: each direct term of the run's total cost spread over the tokens, stacked up
  // to the cost per token

  function waterfallSteps(model, scenario, wf) {
    const b = scenario && scenario.breakdown;
    const tokens = scenario && scenario.values ? scenario.values[wf.tokens] : undefined;
    const perToken = scenario && scenario.values ? scenario.values[wf.per_token] : undefined;
    if (!b || !b.parts || !b.parts.length || b.total_var !== wf.total || typeof tokens !== 'number' || !(tokens > 0))
      return { ok: false, reason: (b && b.note) || 'the total cost or the token count is not computable under this preset' };
    const steps = [];
    let run = 0;
    for (const p of b.parts) {
      const value = p.value / tokens;
      steps.push({ var: p.var, label: model.variables[p.var].name, start: run, end: run + value, value });
      run += value;
    }
    steps.push({ var: wf.per_token, label: model.variables[wf.per_token].name, start: 0, end: run, value: run, total: true });
    return { ok: true, steps, sum: run, per_token: perToken, equal: typeof perToken === 'number' && C.relativeDifference(run, perToken) <= 1e-9 };
  }

  // ---- predicted against reported, one point per built run: its throughput comparison, interval, family

  function predictedVsReported(validation) {
    if (!validation || !validation.available) return [];
    const pts = [];
    for (const row of validation.report.rows) {
      if (!row.built) continue;
      const m = row.metrics.find((x) => x.throughput) || row.metrics[0];
      if (!m || !isFinite(m.reported) || !isFinite(m.predicted)) continue;
      const iv = row.throughput_interval_90 && m.throughput ? row.throughput_interval_90 : null;
      pts.push({ id: row.id, family: row.source_group || 'other', tier: row.tier || '', metric: m.metric, unit: m.unit || '',
        reported: m.reported, predicted: m.predicted, lo: iv ? iv[0] : null, hi: iv ? iv[1] : null, ape: m.ape,
        covered: iv ? m.reported >= iv[0] && m.reported <= iv[1] : null });
    }
    return pts;
  }
  function families(points) {
    const out = new Map();
    for (const p of points) { if (!out.has(p.family)) out.set(p.family, []); out.get(p.family).push(p); }
    return out;
  }

  // ---- heat map colours: a light-to-dark teal ramp, with the number always printed in the cell

  function heatShade(value, lo, hi) {
    if (typeof value !== 'number' || !isFinite(value)) return null;
    const t = hi > lo ? (value - lo) / (hi - lo) : 0.5;
    const mix = (a, b) => Math.round(a + (b - a) * t);
    return { t, color: 'rgb(' + mix(232, 7) + ',' + mix(240, 85) + ',' + mix(236, 96) + ')', dark: t > 0.5 };
  }

  // ---- scenarios side by side

  // Inputs the presets set differently: assignments and selectors. Returns [{var, values: [..per preset]}]
  // for assignments and [{var, keys: [...]}] for selectors.
  function differingInputs(list) {
    const ids = new Set();
    for (const s of list) for (const k of Object.keys(s.assigned || {})) ids.add(Number(k));
    const assigned = [];
    for (const id of [...ids].sort((a, b) => a - b)) {
      const values = list.map((s) => (s.assigned && Object.prototype.hasOwnProperty.call(s.assigned, id) ? s.assigned[id] : null));
      const first = values[0];
      if (values.some((x) => x === null ? first !== null : first === null || C.relativeDifference(x, first) > 1e-12)) assigned.push({ var: id, values });
    }
    const sel = new Set();
    for (const s of list) for (const k of Object.keys(s.variants || {})) sel.add(Number(k));
    const variants = [];
    for (const id of [...sel].sort((a, b) => a - b)) {
      const keys = list.map((s) => (s.variants && s.variants[id] !== undefined ? s.variants[id] : null));
      if (keys.some((k) => k !== keys[0])) variants.push({ var: id, keys });
    }
    return { assigned, variants };
  }

  // For each headline, the change from preset A to preset B traced to the inputs that cause it: A's
  // calculator program is re-run with one of B's differing inputs at a time (one-at-a-time attribution).
  // What the swaps do not explain (inputs A's program never reads, different selectors or relations, and
  // interactions between inputs) is the remainder.
  function traceDifference(model, a, b, headlineIds, limit) {
    const diff = differingInputs([a, b]);
    const readByA = new Set(a.calculator.inputs.map((i) => i.var));
    const base = C.runCalculator(a.calculator, {});
    const swaps = [];
    const untraced = [];
    for (const d of diff.assigned) {
      const to = d.values[1];
      if (to === null) { untraced.push({ var: d.var, why: 'assigned by ' + a.name + ' only' }); continue; }
      if (!readByA.has(d.var)) { untraced.push({ var: d.var, why: a.name + ' does not read it' }); continue; }
      swaps.push({ var: d.var, from: d.values[0], to, vals: C.runCalculator(a.calculator, { [d.var]: to }) });
    }
    for (const v of diff.variants) untraced.push({ var: v.var, why: 'selector ' + v.keys.map((k) => k === null ? '(default)' : k).join(' vs ') });
    const valueIn = (s, id) => { const t = s.targets.find((x) => x.var === id); return t && typeof t.value === 'number' ? t.value : (s.values ? s.values[id] : undefined); };
    const headlines = headlineIds.map((id) => {
      const va = valueIn(a, id);
      const vb = valueIn(b, id);
      const delta = typeof va === 'number' && typeof vb === 'number' ? vb - va : null;
      const causes = swaps.map((s) => ({ var: s.var, from: s.from, to: s.to, effect: s.vals[id] - base[id] }))
        .filter((c) => isFinite(c.effect) && c.effect !== 0)
        .sort((x, y) => Math.abs(y.effect) - Math.abs(x.effect));
      const explained = causes.reduce((s, c) => s + c.effect, 0);
      return { var: id, a: va, b: vb, delta, causes: causes.slice(0, limit || 8), explained,
        remainder: delta === null ? null : delta - explained };
    });
    return { headlines, differing: diff, untraced };
  }

  const api = { quoted, formatQuoted, siText, axisUnit, histogramBars, tornadoRows, paretoFront, waterfallSteps,
    predictedVsReported, families, heatShade, differingInputs, traceDifference };
  root.GStackCharts = api;
  if (typeof module === 'object' && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
