// gpu_stack observatory: the Charts and Compare views. Draws with Chart.js (vendor/chart.min.js, bundled by
// `gpu-stack export site`) from data/charts.js, data/scenarios.js and data/validation.js, shaped by
// GStackCharts. Every chart has a data table (the numbers it draws, SI on hover) and keyboard access:
// the canvas takes focus, the arrow keys step through its points and a live line reads each one out.
// Registers its views in window.GStackViews; app.js calls them with its context.
(function () {
  'use strict';
  const C = window.GStackCore;
  const H = window.GStackCharts;
  const D = window.GSTACK_DATA || {};
  const live = new Map();  // canvas id -> Chart, destroyed before a view redraws
  const PALETTE = ['#087580', '#c64d13', '#2456c4', '#b52720', '#596162', '#7a5195', '#2f7d32', '#a0522d'];
  const SHAPES = ['circle', 'rect', 'triangle', 'rectRot', 'star', 'crossRot', 'rectRounded', 'cross'];

  function destroyAll() { for (const ch of live.values()) ch.destroy(); live.clear(); }

  // A figure: heading, canvas (focusable, labelled), a read-out line and a data table in <details>.
  function figure(ctx, id, title, summary, headers, rows) {
    const { el } = ctx;
    const canvas = el('canvas', { id: 'cv-' + id, tabindex: '0', role: 'img', 'aria-label': title + '. ' + summary + ' Arrow keys step through the points; the table below lists them.' });
    const readout = el('p', { class: 'readout muted', id: 'ro-' + id, 'aria-live': 'polite' }, summary);
    const fig = el('figure', { class: 'chart', id: 'fig-' + id, 'data-chart': id },
      el('figcaption', null, el('h3', null, title)),
      el('div', { class: 'chart-box' }, canvas), readout,
      el('details', { class: 'chart-data' }, el('summary', null, 'Data table: ' + title), ctx.table(headers, rows)));
    return { fig, canvas, readout };
  }

  // The arrow keys move through the points of every dataset in order; Home and End jump to the ends.
  function keyboard(chart, canvas, readout, describe) {
    const points = [];
    chart.data.datasets.forEach((ds, d) => { if (!ds.skipKeys) ds.data.forEach((_, i) => points.push({ datasetIndex: d, index: i })); });
    let at = -1;
    canvas.addEventListener('keydown', (e) => {
      if (!points.length) return;
      const keys = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
      if (e.key in keys) at = (at + keys[e.key] + points.length) % points.length;
      else if (e.key === 'Home') at = 0;
      else if (e.key === 'End') at = points.length - 1;
      else return;
      e.preventDefault();
      const p = points[at];
      chart.setActiveElements([p]);
      chart.tooltip.setActiveElements([p], { x: 0, y: 0 });
      chart.update('none');
      readout.textContent = describe(p.datasetIndex, p.index);
      readout.dataset.at = String(at);
    });
  }

  function make(canvas, config) {
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    const chart = new window.Chart(canvas, config);
    live.set(canvas.id, chart);
    canvas.dataset.rendered = 'true';
    return chart;
  }

  const num = (ctx, v, x) => ctx.el('span', { class: 'num', 'data-value': String(x), title: C.siText(v, x) }, C.formatQuantity(v, x));

  // ---- the Charts view

  function sweepFigures(ctx, ch, out) {
    const V = (id) => ctx.model.variables[id];
    (ch.sweeps || []).forEach((sw, k) => {
      if (sw.error) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'sweep-' + k }, 'Sweep ' + (k + 1) + ': ' + sw.error)); return; }
      const xv = V(sw.vary);
      const xu = H.axisUnit(xv, sw.x);
      sw.series.forEach((se, t) => {
        const yv = V(se.target);
        const yu = H.axisUnit(yv, se.y);
        const id = 'sweep-' + k + '-' + t;
        const rows = sw.x.map((x, i) => [C.formatNumber(sw.factors[i], 3) + '\u00d7', num(ctx, xv, x), se.y[i] === null ? 'unresolved' : num(ctx, yv, se.y[i])]);
        const title = yv.name + ' against ' + xv.name;
        const f = figure(ctx, id, title, 'Sweep of ' + xv.name + ' from ' + C.formatQuantity(xv, sw.x[0]) + ' to ' + C.formatQuantity(xv, sw.x[sw.x.length - 1]) +
          ' (the preset\u2019s value times ' + C.formatNumber(sw.factors[0], 3) + ' to ' + C.formatNumber(sw.factors[sw.factors.length - 1], 3) + ').',
        ['Factor', xv.name, yv.name], rows);
        out.append(f.fig);
        const chart = make(f.canvas, {
          type: 'line',
          data: { datasets: [{ label: yv.name + ' (' + yu.unit + ')', data: sw.x.map((x, i) => ({ x: x / xu.scale, y: se.y[i] === null ? null : se.y[i] / yu.scale })),
            borderColor: PALETTE[0], backgroundColor: PALETTE[0], pointRadius: 4 }] },
          options: { scales: { x: { type: 'logarithmic', min: sw.x[0] / xu.scale, max: sw.x[sw.x.length - 1] / xu.scale, title: { display: true, text: xv.name + ' (' + xu.unit + ')' } }, y: { title: { display: true, text: yu.unit } } } },
        });
        f.canvas.dataset.points = String(sw.x.length);
        keyboard(chart, f.canvas, f.readout, (d, i) => xv.name + ' ' + C.formatQuantity(xv, sw.x[i]) + ': ' + yv.name + ' ' + C.formatQuantity(yv, se.y[i]));
      });
    });
  }

  function heatmapFigure(ctx, ch, out) {
    const hm = ch.heatmap;
    if (!hm) return;
    if (hm.error) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'heatmap' }, 'Heat map: ' + hm.error)); return; }
    const { el } = ctx;
    const V = (id) => ctx.model.variables[id];
    const xv = V(hm.x.vary), yv = V(hm.y.vary), zv = V(hm.target);
    const all = hm.z.flat().filter((z) => typeof z === 'number');
    const lo = Math.min(...all), hi = Math.max(...all);
    const head = el('tr', null, el('th', { scope: 'col' }, yv.name + ' \u2193 / ' + xv.name + ' \u2192'), hm.x.values.map((x) => el('th', { scope: 'col', title: C.siText(xv, x) }, C.formatQuantity(xv, x))));
    const body = hm.y.values.map((y, j) => el('tr', null, el('th', { scope: 'row', title: C.siText(yv, y) }, C.formatQuantity(yv, y)),
      hm.z[j].map((z, i) => {
        const s = H.heatShade(z, lo, hi);
        return el('td', { class: 'heat' + (s && s.dark ? ' dark' : ''), style: s ? 'background:' + s.color : null, 'data-value': String(z), 'data-i': String(i), 'data-j': String(j), title: C.siText(zv, z) },
          z === null ? 'unresolved' : C.formatQuantity(zv, z, 4));
      })));
    out.append(el('figure', { class: 'chart', id: 'fig-heatmap', 'data-chart': 'heatmap' },
      el('figcaption', null, el('h3', null, zv.name + ' over ' + xv.name + ' and ' + yv.name),
        el('p', { class: 'muted' }, 'A heat map that is also its own data table: darker cells cost more; every cell prints its value (',
          C.formatQuantity(zv, lo), ' to ', C.formatQuantity(zv, hi), '). Tab into the table and scroll it with the arrow keys.')),
      el('div', { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': 'Heat map of ' + zv.name },
        el('table', { class: 'heatmap' }, el('thead', null, head), el('tbody', null, body)))));
  }

  function distributionFigure(ctx, ch, out) {
    const d = ch.distribution;
    const V = (id) => ctx.model.variables[id];
    if (!d || d.error) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'distribution' }, 'Distribution: ' + (d ? d.error : 'not exported') + '.')); return; }
    const v = V(d.target);
    const { bars, total } = H.histogramBars(d);
    const u = H.axisUnit(v, [d.max, d.min]);
    const rows = bars.map((b) => [C.formatQuantity(v, b.lo) + ' to ' + C.formatQuantity(v, b.hi), String(b.count), b.inside ? 'inside' : 'outside']);
    const f = figure(ctx, 'distribution', 'Distribution of ' + v.name,
      '90% interval ' + C.formatQuantity(v, d.p5) + ' to ' + C.formatQuantity(v, d.p95) + ', median ' + C.formatQuantity(v, d.p50) + ' (' + d.samples + ' Monte Carlo samples, seed ' + d.seed + ').',
      ['Bin', 'Samples', 'In the 90% interval'], rows);
    f.fig.dataset.p5 = String(d.p5); f.fig.dataset.p50 = String(d.p50); f.fig.dataset.p95 = String(d.p95);
    out.append(f.fig);
    const chart = make(f.canvas, {
      type: 'bar',
      data: { labels: bars.map((b) => C.formatNumber(b.mid / u.scale, 4)),
        datasets: [{ label: 'samples (' + total + ')', data: bars.map((b) => b.count), backgroundColor: bars.map((b) => (b.inside ? PALETTE[0] : '#b9bcb5')),
          borderColor: bars.map((b) => (b.inside ? '#075560' : '#777b76')), borderWidth: 1, barPercentage: 1, categoryPercentage: 1 }] },
      options: { plugins: { legend: { display: false } }, scales: { x: { title: { display: true, text: v.name + ' (' + u.unit + '); teal bars lie inside the 90% interval' } }, y: { title: { display: true, text: 'samples' } } } },
    });
    f.canvas.dataset.points = String(bars.length);
    keyboard(chart, f.canvas, f.readout, (ds, i) => C.formatQuantity(v, bars[i].lo) + ' to ' + C.formatQuantity(v, bars[i].hi) + ': ' + bars[i].count + ' samples' + (bars[i].inside ? ', inside the 90% interval' : ''));
  }

  function tornadoFigure(ctx, ch, s, out) {
    const t = H.tornadoRows(ch, s, 12);
    const V = (id) => ctx.model.variables[id];
    const target = ctx.model.variables[D.charts.target];
    if (!t.rows.length) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'tornado' }, 'Sensitivity: no input of this preset moves ' + target.name + '.')); return; }
    const sobol = t.kind === 'sobol';
    const rows = t.rows.map((r) => [ctx.varLink(r.var), el0(ctx, r.value)].concat(sobol ? [C.formatNumber(r.first, 4)] : []));
    const f = figure(ctx, 'tornado', 'What moves ' + target.name + ': ' + t.label,
      sobol ? 'Sobol total-order indices over the preset\u2019s uncertain inputs (' + ch.sobol.samples + ' base samples, seed ' + ch.sobol.seed + ').'
        : 'Elasticities of ' + target.name + ' with respect to each input of the preset (it has no uncertain inputs): +1 means 1% more input gives 1% more cost.',
      ['Input', t.label].concat(sobol ? ['First-order index'] : []), rows);
    f.fig.dataset.kind = t.kind;
    out.append(f.fig);
    const chart = make(f.canvas, {
      type: 'bar',
      data: { labels: t.rows.map((r) => V(r.var).name), datasets: [{ label: t.label, data: t.rows.map((r) => r.value),
        backgroundColor: t.rows.map((r) => (r.value >= 0 ? PALETTE[0] : PALETTE[1])) }] },
      options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { title: { display: true, text: t.label + (t.kind === 'elasticity' ? ' (orange: more input, less cost)' : '') } } } },
    });
    f.canvas.dataset.points = String(t.rows.length);
    keyboard(chart, f.canvas, f.readout, (d, i) => V(t.rows[i].var).name + ': ' + C.formatNumber(t.rows[i].value, 4));
  }
  function el0(ctx, x) { return ctx.el('span', { class: 'num', 'data-value': String(x) }, C.formatNumber(x, 4)); }

  function planFigure(ctx, ch, out) {
    const p = ch.plan;
    if (!p || p.error) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'plan' }, 'Plan: ' + (p ? p.error : 'not exported') + '.')); return; }
    const tv = ctx.model.variables[p.throughput_var], mv = ctx.model.variables[p.memory_var];
    const cands = p.candidates;
    if (!cands.length) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'plan' }, 'Plan: no layout is feasible under this preset.')); return; }
    const front = H.paretoFront(cands);
    const onFront = new Set(front.map((c) => c.rank));
    const tu = H.axisUnit(tv, cands.map((c) => c.throughput));
    const mu = H.axisUnit(mv, cands.map((c) => c.memory));
    const layout = (c) => Object.entries(c.layout).map(([k, v]) => k + '=' + v).join(' ');
    const rows = cands.map((c) => [String(c.rank), layout(c), num(ctx, tv, c.throughput), num(ctx, mv, c.memory), onFront.has(c.rank) ? '\u2714 front' : '']);
    const f = figure(ctx, 'plan', 'Plan candidates: throughput against memory per GPU',
      'The best ' + cands.length + ' of ' + p.feasible + ' feasible layouts by ' + p.objective + ' (gpu-stack plan --top ' + p.top + '); ' + front.length + ' lie on the Pareto front (no other layout has more throughput with less memory).',
      ['Rank', 'Layout', 'Throughput', 'Memory per GPU', 'Pareto front'], rows);
    f.fig.dataset.front = String(front.length);
    out.append(f.fig);
    const pt = (c) => ({ x: c.memory / mu.scale, y: c.throughput / tu.scale });
    const chart = make(f.canvas, {
      type: 'scatter',
      data: { datasets: [
        { label: 'candidates', data: cands.map(pt), backgroundColor: 'rgba(89,97,98,0.55)', pointRadius: 3, pointStyle: 'circle' },
        { label: 'Pareto front', type: 'line', data: front.map(pt), borderColor: PALETTE[1], backgroundColor: PALETTE[1], pointStyle: 'rectRot', pointRadius: 6, showLine: true, stepped: 'before' },
      ] },
      options: { scales: { x: { title: { display: true, text: 'memory per GPU (' + mu.unit + ')' } }, y: { title: { display: true, text: 'throughput (' + tu.unit + ')' } } } },
    });
    f.canvas.dataset.points = String(cands.length + front.length);
    keyboard(chart, f.canvas, f.readout, (d, i) => {
      const c = d === 0 ? cands[i] : front[i];
      return (d === 1 ? 'Pareto front, ' : '') + 'rank ' + c.rank + ' (' + layout(c) + '): ' + C.formatQuantity(tv, c.throughput) + ' with ' + C.formatQuantity(mv, c.memory) + ' per GPU';
    });
  }

  function waterfallFigure(ctx, s, out) {
    const wf = D.charts.waterfall;
    const w = H.waterfallSteps(ctx.model, s, wf);
    if (!w.ok) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'waterfall' }, 'Cost waterfall: ' + w.reason + '.')); return; }
    const pv = ctx.model.variables[wf.per_token];
    const u = H.axisUnit(pv, [w.sum]);
    const rows = w.steps.map((st) => [ctx.varLink(st.var), num(ctx, pv, st.value), st.total ? '' : C.formatNumber(100 * st.value / w.sum, 3) + '%']);
    const f = figure(ctx, 'waterfall', 'From capex, power and operations to ' + pv.name,
      'Each part of ' + ctx.model.variables[wf.total].name + ' divided by ' + ctx.model.variables[wf.tokens].name + '; the parts add up to ' + C.formatQuantity(pv, w.sum) +
        (w.equal ? ', which is the preset\u2019s cost per token.' : ', which differs from the preset\u2019s cost per token.'),
      ['Part', 'Per token', 'Share'], rows);
    f.fig.dataset.sum = String(w.sum);
    f.fig.dataset.equal = String(w.equal);
    out.append(f.fig);
    const chart = make(f.canvas, {
      type: 'bar',
      data: { labels: w.steps.map((st) => st.label.replace(/^econ\.(run\.)?/, '')),
        datasets: [{ label: pv.name + ' (' + u.unit + ')', data: w.steps.map((st) => [st.start / u.scale, st.end / u.scale]),
          backgroundColor: w.steps.map((st) => (st.total ? '#075560' : st.value >= 0 ? PALETTE[0] : PALETTE[1])) }] },
      options: { plugins: { legend: { display: false } }, scales: { y: { title: { display: true, text: u.unit } } } },
    });
    f.canvas.dataset.points = String(w.steps.length);
    keyboard(chart, f.canvas, f.readout, (d, i) => w.steps[i].label + ': ' + C.formatQuantity(pv, w.steps[i].value));
  }

  // Interval whiskers for the predicted-versus-reported chart: a vertical line from lo to hi at each point.
  const whiskers = {
    id: 'gstackWhiskers',
    afterDatasetsDraw(chart) {
      const g = chart.ctx;
      const { x, y } = chart.scales;
      g.save();
      g.lineWidth = 1.5;
      chart.data.datasets.forEach((ds) => {
        if (!ds.intervals) return;
        g.strokeStyle = ds.borderColor;
        ds.data.forEach((p, i) => {
          const iv = ds.intervals[i];
          if (!iv) return;
          const px = x.getPixelForValue(p.x);
          g.beginPath();
          g.moveTo(px, y.getPixelForValue(iv[0]));
          g.lineTo(px, y.getPixelForValue(iv[1]));
          g.moveTo(px - 4, y.getPixelForValue(iv[0])); g.lineTo(px + 4, y.getPixelForValue(iv[0]));
          g.moveTo(px - 4, y.getPixelForValue(iv[1])); g.lineTo(px + 4, y.getPixelForValue(iv[1]));
          g.stroke();
        });
      });
      g.restore();
    },
  };

  function validationFigure(ctx, out) {
    const pts = H.predictedVsReported(D.validation);
    if (!pts.length) { out.append(ctx.el('p', { class: 'empty', 'data-chart-error': 'validation' }, 'Predicted against reported: no validated runs were exported (export with --runs FILE.csv).')); return; }
    const fams = H.families(pts);
    const rows = pts.map((p) => [p.id, p.family, p.metric + ' (' + p.unit + ')', C.formatNumber(p.reported), C.formatNumber(p.predicted),
      p.lo === null ? '' : C.formatNumber(p.lo) + ' to ' + C.formatNumber(p.hi), C.formatNumber(p.ape, 3) + '%']);
    const covered = pts.filter((p) => p.covered === true).length, withIv = pts.filter((p) => p.covered !== null).length;
    const f = figure(ctx, 'validation', 'Predicted against reported, every validated run',
      pts.length + ' runs in ' + fams.size + ' families, each in its own metric\u2019s unit (log axes); the diagonal is a perfect prediction; whiskers are the 90% interval over unstated settings (' +
        covered + ' of ' + withIv + ' cover the reported value).',
      ['Run', 'Family', 'Metric', 'Reported', 'Predicted', '90% interval', 'APE'], rows);
    f.fig.dataset.runs = String(pts.length);
    out.append(f.fig);
    const datasets = [...fams.entries()].map(([fam, list], k) => ({
      label: fam, data: list.map((p) => ({ x: p.reported, y: p.predicted })), intervals: list.map((p) => (p.lo === null ? null : [p.lo, p.hi])),
      borderColor: PALETTE[k % PALETTE.length], backgroundColor: PALETTE[k % PALETTE.length], pointStyle: SHAPES[k % SHAPES.length], pointRadius: 5, points: list,
    }));
    const lo = Math.min(...pts.map((p) => Math.min(p.reported, p.predicted, p.lo || Infinity))) * 0.8;
    const hi = Math.max(...pts.map((p) => Math.max(p.reported, p.predicted, p.hi || 0))) * 1.25;
    datasets.push({ label: 'predicted = reported', type: 'line', data: [{ x: lo, y: lo }, { x: hi, y: hi }], borderColor: '#777b76', borderDash: [6, 4], pointRadius: 0, skipKeys: true });
    const chart = make(f.canvas, {
      type: 'scatter', data: { datasets }, plugins: [whiskers],
      options: { scales: { x: { type: 'logarithmic', min: lo, max: hi, title: { display: true, text: 'reported' } }, y: { type: 'logarithmic', min: lo, max: hi, title: { display: true, text: 'predicted' } } } },
    });
    f.canvas.dataset.points = String(pts.length);
    keyboard(chart, f.canvas, f.readout, (d, i) => {
      const p = datasets[d].points[i];
      return p.id + ' (' + p.family + '): reported ' + C.formatNumber(p.reported) + ', predicted ' + C.formatNumber(p.predicted) + ' ' + p.unit + (p.lo === null ? '' : ', 90% interval ' + C.formatNumber(p.lo) + ' to ' + C.formatNumber(p.hi)) + '; APE ' + C.formatNumber(p.ape, 3) + '%';
    });
  }

  function renderCharts(ctx) {
    destroyAll();
    const out = ctx.clear(document.getElementById('charts-body'));
    const { el } = ctx;
    if (!window.Chart || !D.charts) {
      out.append(el('p', { class: 'empty', id: 'charts-missing' }, !window.Chart ? 'The charting library (vendor/chart.min.js) did not load; export the site again with gpu-stack export site.' : 'No chart data (data/charts.js); export the site again.'));
      return;
    }
    const s = ctx.scenario();
    const ch = D.charts.scenarios.find((x) => x.name === s.name) || {};
    const sec = (id, title, intro) => { const e = el('section', { class: 'chart-group', id, 'aria-labelledby': id + '-h' }, el('h2', { id: id + '-h' }, title), intro ? el('p', { class: 'muted' }, intro) : null); out.append(e); return e; };
    sweepFigures(ctx, ch, sec('charts-sweeps', 'Sweeps', 'One input of the preset scaled up and down (presets/site/charts.toml), everything else held; the same numbers as gpu-stack sweep.'));
    heatmapFigure(ctx, ch, out.lastChild);
    const unc = sec('charts-uncertainty', 'Uncertainty and sensitivity');
    distributionFigure(ctx, ch, unc);
    tornadoFigure(ctx, ch, s, unc);
    waterfallFigure(ctx, s, sec('charts-cost', 'Cost'));
    planFigure(ctx, ch, sec('charts-plan', 'Execution plans'));
    validationFigure(ctx, sec('charts-validation', 'Validation'));
  }

  // ---- the Compare view: two or more presets side by side

  function selectedPresets(ctx) {
    const names = ctx.scenarios.map((s) => s.name);
    const want = String(C.parseHash(location.hash).with || '').split(',').filter((n) => names.includes(n));
    const picked = want.length >= 2 ? want : names.slice(0, 2);
    return [...new Set(picked)];
  }

  function renderCompare(ctx) {
    const { el } = ctx;
    const out = ctx.clear(document.getElementById('compare-body'));
    const V = (id) => ctx.model.variables[id];
    const names = ctx.scenarios.map((s) => s.name);
    if (names.length < 2) {
      out.append(el('p', { class: 'empty', id: 'compare-empty' }, 'Only one preset was exported (' + names.join('') + '). Export two or more to compare them: gpu-stack export site --out DIR --preset A --preset B.'));
      return;
    }
    const picked = selectedPresets(ctx);
    const pick = el('fieldset', { class: 'questions', id: 'compare-pick' }, el('legend', null, 'Presets to compare (the first is the base)'),
      el('div', { class: 'chips' }, names.map((n) => el('label', { class: 'chip' }, el('input', { type: 'checkbox', value: n, checked: picked.includes(n), 'data-preset': n,
        onchange: () => {
          const now = [...document.querySelectorAll('#compare-pick input:checked')].map((i) => i.value);
          if (now.length < 2) { ctx.announce('Pick at least two presets.'); return; }
          location.hash = C.formatHash({ view: 'compare', preset: ctx.state.preset, with: now.join(',') });
        } }), ' ', n))));
    out.append(pick);
    const list = picked.map((n) => ctx.scenarios.find((s) => s.name === n));
    const headlineIds = ctx.model.questions.map((q) => q.var).concat(list[0].breakdown ? [list[0].breakdown.total_var] : []);
    // Headlines with their 90% intervals.
    const cell = (s, id) => {
      const t = s.targets.find((x) => x.var === id);
      if (!t || typeof t.value !== 'number') return el('span', { class: 'muted', 'data-value': '' }, 'unresolved');
      return el('span', { class: 'num', 'data-value': String(t.value), 'data-preset': s.name, 'data-var': V(id).name, title: C.siText(V(id), t.value) }, C.formatQuantity(V(id), t.value),
        t.interval ? el('span', { class: 'small muted' }, '90%: ' + C.formatQuantity(V(id), t.interval.p5) + ' to ' + C.formatQuantity(V(id), t.interval.p95)) : el('span', { class: 'small muted' }, 'point value'));
    };
    out.append(el('h2', null, 'Headlines'));
    out.append(ctx.table(['Headline'].concat(picked), headlineIds.map((id) => [ctx.varLink(id)].concat(list.map((s) => cell(s, id)))), 'Each preset\u2019s answers (SI on hover)'));
    // Inputs that differ.
    const diff = H.differingInputs(list);
    out.append(el('h2', null, 'Inputs that differ (' + diff.assigned.length + ' assigned, ' + diff.variants.length + ' selectors)'));
    // Inputs every picked preset assigns (with different values) first; those only some assign, in a fold.
    const inRow = (d) => [ctx.varLink(d.var)].concat(d.values.map((x) => (x === null ? el('span', { class: 'muted' }, 'not assigned') : num(ctx, V(d.var), x))));
    const everywhere = diff.assigned.filter((d) => d.values.every((x) => x !== null));
    const some = diff.assigned.filter((d) => d.values.some((x) => x === null));
    const inRows = everywhere.map(inRow);
    for (const v of diff.variants) inRows.push([ctx.varLink(v.var)].concat(v.keys.map((k) => (k === null ? '(default)' : el('code', null, k)))));
    out.append(ctx.table(['Input'].concat(picked), inRows, everywhere.length + ' inputs every preset assigns, with different values, and the selectors that differ'));
    if (some.length)
      out.append(el('details', { id: 'compare-some' }, el('summary', null, some.length + ' inputs only some of the presets assign'), ctx.table(['Input'].concat(picked), some.slice(0, 400).map(inRow))));
    // The differences traced to their inputs, each preset against the base.
    for (const other of list.slice(1)) {
      const tr = H.traceDifference(ctx.model, list[0], other, headlineIds, 6);
      const box = el('section', { class: 'trace-diff', 'data-from': list[0].name, 'data-to': other.name }, el('h2', null, 'From ', el('code', null, list[0].name), ' to ', el('code', null, other.name), ': what causes each difference'));
      box.append(el('p', { class: 'muted' }, 'Each of ' + other.name + '\u2019s differing inputs is put into ' + list[0].name + '\u2019s equations one at a time (the calculator\u2019s programs); the remainder is what single swaps do not explain: interactions, different selectors or relations, and inputs the base never reads (' + tr.untraced.length + ').'));
      const rows = [];
      for (const h of tr.headlines) {
        const v = V(h.var);
        if (h.delta === null) { rows.push([ctx.varLink(h.var), 'unresolved in one preset', '', '']); continue; }
        rows.push([ctx.varLink(h.var), el('strong', { class: 'num', 'data-delta': String(h.delta), title: C.siText(v, h.delta) }, (h.delta >= 0 ? '+' : '') + C.formatQuantity(v, h.delta)), 'total change', '']);
        for (const c of h.causes)
          rows.push(['', el('span', { class: 'num cause', 'data-var': V(c.var).name, 'data-target': v.name, 'data-effect': String(c.effect), 'data-to': String(c.to), title: C.siText(v, c.effect) }, (c.effect >= 0 ? '+' : '') + C.formatQuantity(v, c.effect)),
            ctx.varLink(c.var), C.formatQuantity(V(c.var), c.from) + ' \u2192 ' + C.formatQuantity(V(c.var), c.to)]);
        rows.push(['', el('span', { class: 'num', 'data-remainder': String(h.remainder), title: C.siText(v, h.remainder) }, (h.remainder >= 0 ? '+' : '') + C.formatQuantity(v, h.remainder)), 'remainder', '']);
      }
      box.append(ctx.table(['Headline', 'Change', 'Caused by', 'Input change'], rows));
      out.append(box);
    }
  }

  window.GStackViews = Object.assign(window.GStackViews || {}, { charts: renderCharts, compare: renderCompare });
})();
