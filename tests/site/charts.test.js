// Unit tests of the chart data shaping (site/js/charts-core.js) and the quoted units (site/js/core.js), run
// with `node --test`. With GSTACK_SITE_DIR set to an exported site, they also check the exported chart
// data: the waterfall adds up to cost per token and the comparison's swaps re-run the calculator.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const C = require('../../site/js/core.js');
const H = require('../../site/js/charts-core.js');

const close = (a, b, tol) => assert.ok(C.relativeDifference(a, b) <= tol, `${a} vs ${b} (tolerance ${tol})`);

test('quoted units: the largest rung the value reaches, as the CLI does; SI on hover', () => {
  const cost = { unit: 'USD/token', scale: 1, si: 'USD\u00b7token^-1', ladder: [['USD/Mtoken', 1e-6]] };
  assert.equal(C.formatQuantity(cost, 3.000078e-6), '3.00008 USD/Mtoken');
  assert.equal(C.siText(cost, 3.000078e-6), '3.000078e-6 USD\u00b7token^-1 (SI)');
  const time = { unit: 's', scale: 1, si: 's', ladder: [['s', 1], ['min', 60], ['h', 3600], ['day', 86400], ['yr', 31557600]] };
  assert.equal(C.formatQuantity(time, 8.7e6), '100.694 day');  // 8.7e6 s / 86400
  assert.equal(C.formatQuantity(time, 90), '1.5 min');
  assert.equal(C.formatQuantity(time, 0.15), '0.15 s');  // below the first rung: the first rung
  const power = { unit: 'W', scale: 1, si: 'W', ladder: [['W', 1], ['kW', 1e3], ['MW', 1e6], ['GW', 1e9]] };
  assert.equal(C.formatQuantity(power, 2.35e6), '2.35 MW');
  assert.equal(C.siText(power, 2.35e6), '2.35e+6 W (SI)');
  const mem = { unit: 'GiB', scale: 8 * 2 ** 30, si: 'bit', ladder: [['B', 8], ['kB', 8e3], ['MB', 8e6], ['GB', 8e9], ['TB', 8e12]] };
  assert.equal(C.formatQuantity(mem, 80e9 * 8), '80 GB');
  // Without a ladder the declared unit, as before.
  assert.equal(C.formatQuantity({ unit: 'kW', scale: 1000 }, 5200), '5.2 kW');
  assert.equal(C.formatQuantity(power, NaN), 'unresolved');
});

test('axisUnit picks one rung for a whole axis, from its largest magnitude', () => {
  const power = { unit: 'W', scale: 1, ladder: [['W', 1], ['kW', 1e3], ['MW', 1e6]] };
  assert.deepEqual(H.axisUnit(power, [5e5, 2e6, null]), { unit: 'MW', scale: 1e6 });
  assert.deepEqual(H.axisUnit(power, [500, 900]), { unit: 'W', scale: 1 });
});

test('histogramBars marks the bars inside the 90% interval and counts every sample', () => {
  const d = { edges: [0, 1, 2, 3, 4], counts: [5, 40, 50, 5], p5: 0.9, p95: 3.1 };
  const { bars, total } = H.histogramBars(d);
  assert.equal(total, 100);
  assert.deepEqual(bars.map((b) => b.inside), [false, true, true, false]);
  assert.deepEqual(bars.map((b) => b.mid), [0.5, 1.5, 2.5, 3.5]);
});

test('paretoFront keeps the layouts no other beats on both throughput and memory', () => {
  const cands = [
    { rank: 1, throughput: 10, memory: 70 }, { rank: 2, throughput: 9, memory: 40 }, { rank: 3, throughput: 8, memory: 50 },
    { rank: 4, throughput: 5, memory: 20 }, { rank: 5, throughput: 5, memory: 25 }, { rank: 6, throughput: 10, memory: 80 },
  ];
  assert.deepEqual(H.paretoFront(cands).map((c) => c.rank), [4, 2, 1]);
  assert.deepEqual(H.paretoFront([]), []);
});

test('tornadoRows: Sobol total indices where present, else elasticities, largest magnitude first', () => {
  const sobol = { sobol: { inputs: [{ var: 1, total: 0.2, first: 0.1, elasticity: 0.3 }, { var: 2, total: 0.7, first: 0.6, elasticity: 0.9 }] } };
  const t = H.tornadoRows(sobol, null, 5);
  assert.equal(t.kind, 'sobol');
  assert.deepEqual(t.rows.map((r) => r.var), [2, 1]);
  const el = H.tornadoRows({ sobol: { error: 'no spread' } }, { influence: { rows: [{ var: 3, elasticity: 0.5 }, { var: 4, elasticity: -0.9 }, { var: 5, elasticity: 0 }, { var: 6, elasticity: null }] } }, 5);
  assert.equal(el.kind, 'elasticity');
  assert.deepEqual(el.rows.map((r) => [r.var, r.value]), [[4, -0.9], [3, 0.5]]);
});

test('waterfallSteps spreads each cost part over the tokens and stacks them to the cost per token', () => {
  const model = { variables: [{ name: 'total' }, { name: 'tokens' }, { name: 'per_token' }, { name: 'capex' }, { name: 'power' }, { name: 'ops' }] };
  const s = { values: { 1: 1e9, 2: 6e-6 }, breakdown: { total_var: 0, total: 6000, parts: [{ var: 3, value: 3000 }, { var: 4, value: 2000 }, { var: 5, value: 1000 }] } };
  const w = H.waterfallSteps(model, s, { total: 0, tokens: 1, per_token: 2 });
  assert.ok(w.ok && w.equal);
  const want = [[0, 3e-6], [3e-6, 5e-6], [5e-6, 6e-6], [0, 6e-6]];
  w.steps.forEach((x, i) => { assert.ok(Math.abs(x.start - want[i][0]) <= 1e-18); close(x.end, want[i][1], 1e-12); });
  assert.equal(w.steps[3].total, true);
  const none = H.waterfallSteps(model, { values: {}, breakdown: { total_var: 0, parts: [], note: 'assigned' } }, { total: 0, tokens: 1, per_token: 2 });
  assert.equal(none.ok, false);
  assert.match(none.reason, /assigned/);
});

test('predictedVsReported takes each built run\'s throughput comparison, interval and family', () => {
  const val = { available: true, report: { rows: [
    { id: 'a', built: true, source_group: 'G1', tier: 'A', throughput_interval_90: [90, 130], metrics: [{ metric: 'mfu', reported: 0.4, predicted: 0.38, ape: 5 }, { metric: 'tflops', unit: 'TFLOP/s', reported: 100, predicted: 110, ape: 10, throughput: true }] },
    { id: 'b', built: false, reason: 'x' },
    { id: 'c', built: true, source_group: 'G2', metrics: [{ metric: 'tokens', unit: 'tokens/s', reported: 1000, predicted: 800, ape: 20, throughput: true }] },
  ] } };
  const pts = H.predictedVsReported(val);
  assert.deepEqual(pts.map((p) => [p.id, p.family, p.metric, p.lo, p.hi, p.covered]), [['a', 'G1', 'tflops', 90, 130, true], ['c', 'G2', 'tokens', null, null, null]]);
  assert.equal(H.families(pts).size, 2);
  assert.deepEqual(H.predictedVsReported({ available: false }), []);
});

test('heatShade maps low to light and high to dark, and leaves holes empty', () => {
  assert.equal(H.heatShade(0, 0, 10).t, 0);
  assert.equal(H.heatShade(10, 0, 10).dark, true);
  assert.equal(H.heatShade(null, 0, 10), null);
});

test('traceDifference: one-at-a-time swaps explain a product\'s change, the remainder is the interaction', () => {
  // y = x0 * x1; A: 2 * 3 = 6, B: 4 * 5 = 20. Swapping x0 gives +6, x1 gives +4, remainder 20 - 6 - 10 = 4.
  const calc = { inputs: [{ var: 0, base: 2 }, { var: 1, base: 3 }], steps: [{ var: 2, rhs: [['v', 0], ['v', 1], '*'] }] };
  const model = { variables: [{ name: 'x0' }, { name: 'x1' }, { name: 'y' }, { name: 'z' }] };
  const a = { name: 'A', assigned: { 0: 2, 1: 3 }, variants: {}, calculator: calc, targets: [{ var: 2, value: 6 }] };
  const b = { name: 'B', assigned: { 0: 4, 1: 5, 3: 1 }, variants: { 7: 'fast' }, calculator: calc, targets: [{ var: 2, value: 20 }] };
  const d = H.differingInputs([a, b]);
  assert.deepEqual(d.assigned.map((x) => x.var), [0, 1, 3]);
  assert.deepEqual(d.variants, [{ var: 7, keys: [null, 'fast'] }]);
  const t = H.traceDifference(model, a, b, [2]);
  const h = t.headlines[0];
  assert.equal(h.delta, 14);
  assert.deepEqual(h.causes.map((c) => [c.var, c.effect]), [[0, 6], [1, 4]]);
  assert.equal(h.remainder, 4);
  assert.deepEqual(t.untraced.map((u) => u.var), [3, 7]);
});

// ---- the exported site, when the tests are given one

const siteDir = process.env.GSTACK_SITE_DIR;
function loadSite() {
  const ctx = { window: {} };
  vm.createContext(ctx);
  for (const f of ['model', 'scenarios', 'charts', 'validation'])
    vm.runInContext(fs.readFileSync(path.join(siteDir, 'data', f + '.js'), 'utf8'), ctx);
  return ctx.window.GSTACK_DATA;
}

test('exported site: the bundled Chart.js is the MIT-licensed 3.9.1 build', { skip: !siteDir }, () => {
  const js = fs.readFileSync(path.join(siteDir, 'vendor', 'chart.min.js'), 'utf8');
  assert.match(js.slice(0, 300), /Chart\.js v3\.9\.1/);
  assert.match(js.slice(0, 300), /MIT License/);
});

test('exported site: every variable with a quoted unit has a ladder whose rungs grow', { skip: !siteDir }, () => {
  const D = loadSite();
  const cpt = D.model.variables.find((v) => v.name === D.model.variables[D.charts.waterfall.per_token].name);
  assert.deepEqual(JSON.parse(JSON.stringify(cpt.ladder)), [["USD/Mtoken", 1e-6]]);  // arrays of another vm context
  for (const v of D.model.variables) {
    assert.equal(typeof v.si, 'string');
    if (v.ladder) for (let i = 1; i < v.ladder.length; i++) assert.ok(v.ladder[i][1] > v.ladder[i - 1][1], v.name);
  }
});

test('exported site: the waterfall of every preset adds up to its cost per token (1e-9)', { skip: !siteDir }, () => {
  const D = loadSite();
  C.indexModel(D.model);
  let checked = 0;
  for (const s of D.scenarios.scenarios) {
    const w = H.waterfallSteps(D.model, s, D.charts.waterfall);
    if (!w.ok) continue;
    close(w.sum, w.per_token, 1e-9);
    checked++;
  }
  assert.ok(checked > 0, 'some preset has a waterfall');
});

test('exported site: sweeps pass through the preset\'s own value at factor 1 (1e-9)', { skip: !siteDir }, () => {
  const D = loadSite();
  for (const ch of D.charts.scenarios) {
    const s = D.scenarios.scenarios.find((x) => x.name === ch.name);
    for (const sw of ch.sweeps) {
      if (sw.error) continue;
      const i = sw.factors.findIndex((f) => Math.abs(f - 1) < 1e-12);
      if (i < 0) continue;
      for (const se of sw.series) {
        const t = s.targets.find((x) => x.var === se.target);
        const want = t && typeof t.value === 'number' ? t.value : s.values[se.target];
        if (typeof want === 'number') close(se.y[i], want, 1e-9);
      }
    }
  }
});
