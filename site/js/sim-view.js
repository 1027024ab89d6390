// gpu_stack observatory: the Simulation view. Draws data/simulation (one scenario under each recovery
// policy, aggregated at export; see js/sim-core.js) with the bundled Chart.js: the recovery timeline
// (zoom from the whole run down to minutes; narrow windows draw each interruption to scale, and a served
// page asks POST /api/simulation_timeline for finer buckets), ETTR and goodput over time, interruptions by
// cause against the published table, and the policies side by side. Every chart has a data table and
// keyboard access (focus it: arrow keys read the points; on the timeline + and - zoom, [ and ] pan).
(function () {
  'use strict';
  const C = window.GStackCore;
  const S = window.GStackSim;
  const D = window.GSTACK_DATA || {};
  const charts = new Map();
  const PHASES = [
    ['compute_s', 'compute kept', '#2f7d32'], ['lost_s', 'compute lost (redone)', '#b52720'], ['checkpoint_s', 'checkpoint', '#2456c4'],
    ['detect_s', 'detection (hung)', '#c64d13'], ['restart_s', 'restart', '#7a5195'], ['reconfigure_s', 'reconfigure', '#087580'],
    ['paused_s', 'paused', '#596162'], ['waiting_s', 'waiting', '#a0522d'], ['other_s', 'other', '#999999']];
  const view = { policy: null, from: 0, to: 0, zoom: 0, server: null, seq: 0 };
  window.GStackSimView = view;

  const data = () => D.simulation || { runs: [] };
  const runOf = (policy) => data().runs.find((r) => r.policy === policy);
  const pct = (x) => (100 * x).toFixed(2) + ' %';
  const tokens = (x) => (x / 1e6).toFixed(3) + ' M tokens/s';
  // A time in the run as "day 12 04:35" (with seconds when `seconds`).
  const two = (x) => String(Math.floor(x)).padStart(2, '0');
  const when = (t, seconds) => 'day ' + Math.floor(t / 86400) + ' ' + two((t % 86400) / 3600) + ':' + two((t % 3600) / 60) + (seconds ? ':' + two(t % 60) : '');

  function make(canvas, config) {
    if (charts.has(canvas.id)) charts.get(canvas.id).destroy();
    config.options = Object.assign({ animation: false, responsive: true, maintainAspectRatio: false }, config.options || {});
    const chart = new window.Chart(canvas, config);
    charts.set(canvas.id, chart);
    canvas.dataset.rendered = 'true';
    return chart;
  }

  // A figure with a focusable canvas, a read-out line and its data table in a fold.
  function figure(ctx, id, title, summary, headers, rows) {
    const { el } = ctx;
    const canvas = el('canvas', { id: 'cv-' + id, tabindex: '0', role: 'img', 'aria-label': title + '. ' + summary + ' Arrow keys read the points; the table below lists them.' });
    const readout = el('p', { class: 'readout muted', id: 'ro-' + id, 'aria-live': 'polite' }, summary);
    const tableBox = el('div', { class: 'sim-table' }, ctx.table(headers, rows));
    const fig = el('figure', { class: 'chart', id: 'fig-' + id, 'data-chart': id }, el('figcaption', null, el('h3', null, title)),
      el('div', { class: 'chart-box' }, canvas), readout, el('details', { class: 'chart-data' }, el('summary', null, 'Data table: ' + title), tableBox));
    return { fig, canvas, readout, tableBox };
  }

  // Arrow keys step through the points of the first dataset; `extra` handles other keys.
  function keys(chart, canvas, readout, describe, extra) {
    let at = -1;
    canvas.addEventListener('keydown', (e) => {
      const n = chart.data.labels ? chart.data.labels.length : chart.data.datasets[0].data.length;
      const step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[e.key];
      if (step && n) at = (at + step + n) % n;
      else if (e.key === 'Home' && n) at = 0;
      else if (e.key === 'End' && n) at = n - 1;
      else { if (extra && extra(e)) e.preventDefault(); return; }
      e.preventDefault();
      const active = chart.data.datasets.map((_, d) => ({ datasetIndex: d, index: at }));
      chart.setActiveElements(active);
      chart.tooltip.setActiveElements(active, { x: 0, y: 0 });
      chart.update('none');
      readout.textContent = describe(at);
      readout.dataset.at = String(at);
    });
  }

  // ---- the policies side by side

  function renderPolicies(ctx, out) {
    const { el } = ctx;
    const rows = S.policyRows(data());
    out.append(el('h2', null, 'Recovery policies side by side (same failure trace)'));
    const f = figure(ctx, 'sim-policies', 'Effective training time ratio by recovery policy', 'ETTR of each policy over the whole run.',
      ['Policy', 'ETTR', 'Goodput', 'Interruptions', 'Lost GPU-hours', 'Checkpoints', 'Same numbers as'],
      rows.map((r) => [el('code', null, r.policy), el('span', { class: 'num', 'data-policy': r.policy, 'data-ettr': String(r.ettr) }, pct(r.ettr)),
        el('span', { class: 'num', 'data-goodput': String(r.goodput), title: r.goodput.toExponential(6) + ' token/s (SI)' }, tokens(r.goodput)),
        el('span', { class: 'num', 'data-interruptions': String(r.interruptions) }, String(r.interruptions)),
        el('span', { class: 'num', title: r.lost_gpu_hours.toExponential(6) + ' GPU-h' }, Math.round(r.lost_gpu_hours).toLocaleString('en')),
        String(r.checkpoints), el('code', { class: 'small' }, r.cli)]));
    // The comparison is also shown as a table outside the fold: it is the answer, not a detail.
    out.append(f.tableBox.cloneNode(true));
    out.append(f.fig);
    const chart = make(f.canvas, { type: 'bar', data: { labels: rows.map((r) => r.policy), datasets: [{ label: 'ETTR', data: rows.map((r) => r.ettr), backgroundColor: '#087580' }] },
      options: { scales: { y: { min: 0, max: 1, title: { display: true, text: 'ETTR' } } }, plugins: { legend: { display: false } } } });
    keys(chart, f.canvas, f.readout, (i) => rows[i].policy + ': ETTR ' + pct(rows[i].ettr) + ', goodput ' + tokens(rows[i].goodput) + ', ' + rows[i].interruptions + ' interruptions.');
  }

  // ---- the recovery timeline

  function timelineRows(run) {
    if (view.server && view.server.policy === run.policy && view.server.from_s === view.from && view.server.to_s === view.to) {
      return S.records(view.server).map((b) => Object.assign(b, { width_s: view.server.bucket_s }));
    }
    return S.windowBuckets(run.timeline, view.from, view.to, 160);
  }

  async function fetchFiner(ctx, run) {
    // Served pages ask for buckets of the window itself when the exported ones are too coarse to show it.
    if (!window.GStackLive || !window.GStackLive.available) return;
    if ((view.to - view.from) / data().bucket_s > 40) return;
    if (view.server && view.server.policy === run.policy && view.server.from_s === view.from && view.server.to_s === view.to) return;
    const seq = ++view.seq;
    try {
      const answer = await window.GStackLive.post('simulation_timeline', { scenario: data().scenario.name, policy: run.policy, from_s: view.from, to_s: view.to, buckets: 120 });
      if (seq !== view.seq) return;
      view.server = answer;
      drawTimeline(ctx);
    } catch (e) {
      ctx.announce('The server could not give finer buckets: ' + e.message);
    }
  }

  function drawTimeline(ctx) {
    const { el } = ctx;
    const box = document.getElementById('sim-timeline');
    if (!box) return;
    ctx.clear(box);
    const run = runOf(view.policy);
    const end = data().scenario.horizon_s;
    const buckets = timelineRows(run);
    const fromServer = Boolean(view.server && view.server.policy === run.policy && view.server.from_s === view.from && view.server.to_s === view.to);
    const controls = el('div', { class: 'row sim-controls', role: 'group', 'aria-label': 'Timeline window' });
    S.ZOOMS.forEach((w, i) => controls.append(el('button', { type: 'button', 'data-zoom': String(i), 'aria-pressed': String(view.zoom === i), onclick: () => zoomTo(ctx, i) },
      S.ZOOM_LABELS[i])));
    controls.append(el('button', { type: 'button', 'data-pan': '-1', 'aria-label': 'Earlier', onclick: () => pan(ctx, -1) }, '\u2190 earlier'),
      el('button', { type: 'button', 'data-pan': '1', 'aria-label': 'Later', onclick: () => pan(ctx, 1) }, 'later \u2192'));
    box.append(controls);
    const width = buckets.length ? buckets[0].width_s : data().bucket_s;
    const summary = 'From ' + when(view.from) + ' to ' + when(view.to) + ' (' + S.duration(view.to - view.from) + '), ' + buckets.length + ' buckets of ' + S.duration(width) +
      (fromServer ? ' computed by the server for this window' : ' from the export') + '. Each bar is the share of its bucket the job spent in each phase.' +
      (!fromServer && width > view.to - view.from ? ' The export\u2019s buckets are wider than this window: the interruptions below are drawn to scale, and `gpu-stack serve` gives buckets of the window itself.' : '');
    const headers = ['Bucket start', 'Width'].concat(PHASES.map((p) => p[1]), ['Failures', 'Interruptions', 'Checkpoints']);
    const rows = buckets.map((b) => [when(b.t_s), S.duration(b.width_s)].concat(PHASES.map((p) => pct(b[p[0]] / b.width_s)), [String(b.failures), String(b.interruptions), String(b.checkpoints)]));
    const f = figure(ctx, 'sim-timeline', 'Recovery timeline: ' + run.policy, summary, headers, rows);
    f.fig.dataset.from = String(view.from), f.fig.dataset.to = String(view.to), f.fig.dataset.buckets = String(buckets.length);
    f.fig.dataset.source = fromServer ? 'server' : 'export';
    box.append(f.fig);
    const chart = make(f.canvas, {
      type: 'bar',
      data: { labels: buckets.map((b) => when(b.t_s, width < 60)), datasets: PHASES.map((p) => ({ label: p[1], data: buckets.map((b) => b[p[0]] / b.width_s), backgroundColor: p[2], stack: 'phases' })) },
      options: { scales: { x: { stacked: true, ticks: { maxTicksLimit: 8 } }, y: { stacked: true, min: 0, max: 1, title: { display: true, text: 'share of the bucket' } } } },
    });
    keys(chart, f.canvas, f.readout, (i) => {
      const b = buckets[i];
      return when(b.t_s) + ' (' + S.duration(b.width_s) + '): ' + PHASES.filter((p) => b[p[0]] > 0).map((p) => p[1] + ' ' + pct(b[p[0]] / b.width_s)).join(', ') +
        '; ' + b.interruptions + ' interruptions, ' + b.checkpoints + ' checkpoints.';
    }, (e) => {
      if (e.key === '+' || e.key === '=') { zoomTo(ctx, Math.min(S.ZOOMS.length - 1, view.zoom + 1)); return true; }
      if (e.key === '-') { zoomTo(ctx, Math.max(0, view.zoom - 1)); return true; }
      if (e.key === '[' || e.key === ']') { pan(ctx, e.key === '[' ? -1 : 1); return true; }
      return false;
    });
    // Interruptions in the window, to scale: lost compute, detection and recovery as floating bars.
    const eps = S.episodesIn(run, view.from, view.to);
    box.dataset.episodes = String(eps.length);
    if (view.to - view.from <= 2 * 86400 && eps.length) {
      const list = eps.slice(0, 40);
      const g = figure(ctx, 'sim-episodes', 'Interruptions in this window, to scale', list.length + ' interruption(s): the compute lost since the last checkpoint, the time until detection, and the recovery until the job computed again.',
        ['Stopped', 'Cause', 'Lost compute', 'Detected after', 'Computing again after', 'Recovery'],
        list.map((e) => [when(e.t_s), el('code', null, e.cause), S.duration(e.lost_s), S.duration(e.detected_s - e.t_s), S.duration(e.resumed_s - e.t_s), e.recovery]));
      box.append(g.fig);
      const m = (t) => (t - view.from) / 60;
      const ch = make(g.canvas, {
        type: 'bar',
        data: { labels: list.map((e) => e.cause + ' @ ' + when(e.t_s)), datasets: [
          { label: 'compute lost', data: list.map((e) => [m(e.t_s - e.lost_s), m(e.t_s)]), backgroundColor: '#b52720' },
          { label: 'detection (or pause)', data: list.map((e) => [m(e.t_s), m(e.detected_s)]), backgroundColor: '#c64d13' },
          { label: 'recovery', data: list.map((e) => [m(e.detected_s), m(e.resumed_s)]), backgroundColor: '#7a5195' }] },
        options: { indexAxis: 'y', scales: { x: { min: 0, max: m(view.to), title: { display: true, text: 'minutes from ' + when(view.from) } }, y: { stacked: true } } },
      });
      keys(ch, g.canvas, g.readout, (i) => list[i].cause + ' at ' + when(list[i].t_s) + ': lost ' + S.duration(list[i].lost_s) + ', detected after ' + S.duration(list[i].detected_s - list[i].t_s) +
        ', computing again after ' + S.duration(list[i].resumed_s - list[i].t_s) + '.');
    }
    fetchFiner(ctx, run);
  }

  function setWindow(centre, zoom) {
    const end = data().scenario.horizon_s;
    view.zoom = zoom;
    const w = clampWidth(S.ZOOMS[zoom], end);
    const win = S.clampWindow(centre, w, end);
    view.from = win.from, view.to = win.to;
  }
  const clampWidth = (w, end) => (w === Infinity ? end : Math.min(w, end));

  function zoomTo(ctx, zoom) {
    // Zooming in centres on the busiest interruption of the window, so the picture shows recovery at work.
    const run = runOf(view.policy);
    let centre = (view.from + view.to) / 2;
    if (zoom > view.zoom) {
      const all = S.episodesIn(run, view.from, view.to);
      const failures = all.filter((e) => e.cause !== 'planned_maintenance');
      const eps = failures.length ? failures : all;
      if (eps.length) {
        // The longest failure a quarter of the way into the new window, its recovery after it.
        const e = eps.reduce((a, b) => (b.resumed_s - b.t_s > a.resumed_s - a.t_s ? b : a));
        centre = e.t_s + clampWidth(S.ZOOMS[zoom], data().scenario.horizon_s) / 4;
      }
    }
    setWindow(centre, zoom);
    ctx.announce('Timeline from ' + when(view.from) + ' to ' + when(view.to) + '.');
    drawTimeline(ctx);
    const cv = document.getElementById('cv-sim-timeline');
    if (cv) cv.focus();
  }

  function pan(ctx, dir) {
    const w = view.to - view.from;
    setWindow((view.from + view.to) / 2 + dir * w * 0.75, view.zoom);
    drawTimeline(ctx);
  }

  // ---- ETTR and goodput over time

  function renderOverTime(ctx, out, run) {
    const cum = S.cumulativeEttr(run.timeline), gp = S.goodputSeries(run);
    const last = cum[cum.length - 1];
    const f = figure(ctx, 'sim-ettr', 'ETTR and goodput over time: ' + run.policy,
      'Cumulative ETTR ends at ' + pct(last ? last.ettr : 0) + ' (estimated from the timeline; the run\u2019s ledger gives ' + pct(run.job.ettr) + '). Goodput per bucket in million tokens per second.',
      ['Bucket end', 'Cumulative ETTR', 'Goodput in the bucket'], cum.map((c, i) => [when(c.t_s), pct(c.ettr), tokens(gp[i].tokens_per_s)]));
    f.fig.dataset.finalEttr = String(last ? last.ettr : '');
    out.append(f.fig);
    const chart = make(f.canvas, {
      type: 'line',
      data: { labels: cum.map((c) => when(c.t_s)), datasets: [
        { label: 'cumulative ETTR', data: cum.map((c) => c.ettr), borderColor: '#087580', pointRadius: 0, yAxisID: 'y' },
        { label: 'goodput (M tokens/s)', data: gp.map((g) => g.tokens_per_s / 1e6), borderColor: '#c64d13', pointRadius: 0, yAxisID: 'y2' }] },
      options: { scales: { x: { ticks: { maxTicksLimit: 8 } }, y: { min: 0, max: 1, title: { display: true, text: 'ETTR' } }, y2: { position: 'right', min: 0, title: { display: true, text: 'M tokens/s' }, grid: { drawOnChartArea: false } } } },
    });
    keys(chart, f.canvas, f.readout, (i) => when(cum[i].t_s) + ': cumulative ETTR ' + pct(cum[i].ettr) + ', goodput ' + tokens(gp[i].tokens_per_s) + '.');
  }

  // ---- interruptions by cause against the published table

  function renderCauses(ctx, out) {
    const { el } = ctx;
    const rows = S.causesTable(data());
    const fig = data().published && data().published.figures ? data().published.figures : [];
    out.append(el('h2', null, 'Against the published record'));
    out.append(ctx.table(['Figure', 'Published', 'Simulated', 'Gap', 'Verdict', 'Source'], fig.map((x) => [el('code', null, x.id),
      (x.relation === 'gt' ? '> ' : '') + x.published + (x.tolerance ? ' \u00b1' + Math.round(100 * x.tolerance) + '%' : ''),
      el('span', { class: 'num', 'data-figure': x.id, 'data-simulated': String(x.simulated) }, Number(x.simulated.toPrecision(4)).toString()),
      Number(x.gap.toPrecision(3)).toString(), x.consistent ? '\u2714 consistent' : '\u2716 NOT consistent', x.source]),
    'The scenario\u2019s published figures (compared, never fitted), policy ' + (data().runs[0] ? data().runs[0].policy : '')));
    const f = figure(ctx, 'sim-causes', 'Interruptions by cause: simulated and published', rows.length + ' causes; the published count is the source\u2019s observation over its 54 days.',
      ['Cause', 'Category', 'Simulated', 'Published'], rows.map((r) => [el('code', null, r.cause), r.category, el('span', { class: 'num', 'data-cause': r.cause, 'data-simulated': String(r.simulated) }, String(r.simulated)), String(r.observed)]));
    out.append(f.fig);
    const chart = make(f.canvas, {
      type: 'bar',
      data: { labels: rows.map((r) => r.cause), datasets: [{ label: 'simulated', data: rows.map((r) => r.simulated), backgroundColor: '#087580' }, { label: 'published', data: rows.map((r) => r.observed), backgroundColor: '#c64d13' }] },
      options: { indexAxis: 'y', scales: { y: { ticks: { autoSkip: false } } } },
    });
    keys(chart, f.canvas, f.readout, (i) => rows[i].cause + ': simulated ' + rows[i].simulated + ', published ' + rows[i].observed + '.');
  }

  function renderSimulation(ctx) {
    const { el } = ctx;
    const out = ctx.clear(document.getElementById('sim-body'));
    for (const ch of charts.values()) ch.destroy();
    charts.clear();
    const d = data();
    if (!d.runs || !d.runs.length) { out.append(el('p', { class: 'note' }, 'This site was exported without a simulation (no presets/site/simulation.toml).')); return; }
    const policies = d.runs.map((r) => r.policy);
    if (!view.policy || !policies.includes(view.policy)) view.policy = ctx.state.policy && policies.includes(ctx.state.policy) ? ctx.state.policy : policies[0];
    if (!(view.to > view.from)) setWindow(0, 0);
    const sc = d.scenario;
    out.append(el('p', { class: 'lede' }, el('code', null, sc.file), ': ' + sc.description + ' ' + Math.round(sc.gpus).toLocaleString('en') + ' GPUs, ' + S.duration(sc.horizon_s) +
      ', seed ' + sc.seed + '. Every policy runs on the same failure trace; each row is what ', el('code', null, 'gpu-stack simulate --policy P --json'), ' prints.'));
    renderPolicies(ctx, out);
    out.append(el('h2', null, 'Recovery timeline'));
    const pick = el('select', { id: 'sim-policy', 'aria-label': 'Recovery policy shown on the timeline' }, policies.map((p) => el('option', { value: p, selected: p === view.policy }, p)));
    pick.addEventListener('change', () => { view.policy = pick.value; view.server = null; renderSimulation(ctx); });
    out.append(el('label', { class: 'row' }, 'Policy ', pick));
    out.append(el('div', { id: 'sim-timeline' }));
    const run = runOf(view.policy);
    drawTimeline(ctx);
    renderOverTime(ctx, out, run);
    renderCauses(ctx, out);
  }

  // For the WebMCP tools: the run list, the comparison and a window of a run's timeline.
  view.api = {
    runs: () => data().runs.map((r) => ({ policy: r.policy, ettr: r.job.ettr, interruptions: S.policyRows({ runs: [r] })[0].interruptions })),
    compare: () => S.policyRows(data()),
    timeline(policy, from, to, buckets) {
      const run = runOf(policy);
      if (!run) return null;
      return { policy, buckets: S.windowBuckets(run.timeline, from, to, buckets), episodes: S.episodesIn(run, from, to) };
    },
    show(policy, from, to) {
      view.policy = policy;
      if (to > from) { view.from = from, view.to = to; view.zoom = S.ZOOMS.findIndex((w) => w <= to - from + 1e-9); if (view.zoom < 0) view.zoom = 0; }
    },
  };

  window.GStackViews = Object.assign(window.GStackViews || {}, { simulation: renderSimulation });
})();
