// Unit tests of the observatory's page logic (site/js/core.js), run with `node --test`. With
// GSTACK_SITE_DIR set to an exported site, they also check the calculator against the exporter's data.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const vm = require('node:vm');
const C = require('../../site/js/core.js');

test('formatNumber: six significant digits, scientific outside 1e-3..1e6, never NaN', () => {
  assert.equal(C.formatNumber(1.5), '1.5');
  assert.equal(C.formatNumber(5200), '5,200');
  assert.equal(C.formatNumber(30.00078), '30.0008');
  assert.equal(C.formatNumber(3.000078e-6), '3.00008 \u00d7 10\u207b\u2076');
  assert.equal(C.formatNumber(6666666.666666667), '6.66667 \u00d7 10\u2076');
  assert.equal(C.formatNumber(0), '0');
  assert.equal(C.formatNumber(-0.5), '-0.5');
  assert.equal(C.formatNumber(NaN), 'unresolved');
  assert.equal(C.formatNumber(undefined), 'unresolved');
  assert.equal(C.formatNumber(Infinity), 'unresolved');
});

test('formatQuantity converts base units to the display unit', () => {
  const v = { name: 'x', unit: 'kW', scale: 1000 };
  assert.equal(C.formatQuantity(v, 5200), '5.2 kW');
  assert.equal(C.toDisplay(v, 5200), 5.2);
  assert.equal(C.fromDisplay(v, 5.2), 5200);
  assert.equal(C.formatQuantity({ unit: '1', scale: 1 }, 0.25), '0.25');
});

test('evalPostfix: arithmetic, functions, comparisons and piecewise match the C++ machine', () => {
  const vals = { 0: 2, 1: 3 };
  assert.equal(C.evalPostfix([['v', 0], ['v', 1], '+', 4, '*'], vals), 20);
  assert.equal(C.evalPostfix([['v', 0], ['v', 1], '^'], vals), 8);
  assert.equal(C.evalPostfix([['v', 0], 'neg'], vals), -2);
  assert.equal(C.evalPostfix([1, 2, 3, ['f', 'max', 3]], vals), 3);
  assert.equal(C.evalPostfix([8, ['f', 'log2', 1]], vals), 3);
  assert.equal(C.evalPostfix([100, ['f', 'log10', 1]], vals), 2);
  assert.equal(C.evalPostfix([2.7, ['f', 'floor', 1]], vals), 2);
  // piecewise: value1 cond1 value2 cond2 otherwise -> first true condition wins
  const pw = (x) => C.evalPostfix([10, ['v', 0], 0, '<', 20, ['v', 0], 5, '<', 30, ['p', 5]], { 0: x });
  assert.equal(pw(-1), 10);
  assert.equal(pw(1), 20);
  assert.equal(pw(9), 30);
  assert.equal(C.evalPostfix([1, 0, 'and', 'not'], vals), 1);
  assert.equal(C.evalPostfix([['l', 0], 2, '*'], vals, 21), 42);
  assert.ok(Number.isNaN(C.evalPostfix([['v', 9], 1, '+'], vals)));
  assert.throws(() => C.evalPostfix(['+'], vals), /underflow/);
  assert.throws(() => C.evalPostfix([1, 2], vals), /malformed/);
});

test('runCalculator runs steps in order, with overrides and iterations', () => {
  const calc = {
    inputs: [{ var: 0, base: 2 }, { var: 1, base: 3 }],
    steps: [
      { var: 2, rhs: [['v', 0], ['v', 1], '*'] },
      { var: 3, rhs: [['l', 0], 2, '*'], init: [1], iter: [['v', 1]] },  // 1 doubled 3 times
    ],
  };
  assert.deepEqual(C.runCalculator(calc), { 0: 2, 1: 3, 2: 6, 3: 8 });
  assert.equal(C.runCalculator(calc, { 0: 5 })[2], 15);
});

const tiny = () => ({
  variables: [
    { name: 'physics.c', kind: 'constant', value: 3e8, unit: 'm/s', scale: 1, defs: [] },
    { name: 'a.x', kind: 'root', unit: '1', scale: 1, defs: [] },
    { name: 'b.y', kind: 'derived', unit: '1', scale: 1, defs: [0], desc: 'why y' },
    { name: 'c.z', kind: 'derived', unit: '1', scale: 1, defs: [1] },
  ],
  relations: [
    { name: 'b.y_eq', role: 'identity', def: 2, deps: [0, 1], text: 'b.y = physics.c * a.x' },
    { name: 'c.z_eq', role: 'identity', def: 3, deps: [2], text: 'c.z = b.y' },
    { name: 'c.bound', role: 'constraint', def: -1, deps: [3, 0], text: 'c.z <= physics.c' },
  ],
});

test('tracePath follows relations from a variable up to a target, hop by hop', () => {
  const m = tiny();
  const hops = C.tracePath(m, null, 0, 3);
  assert.deepEqual(hops.map((h) => h.var), [0, 2, 3]);
  assert.deepEqual(hops.map((h) => h.rel), [0, 1, null]);
  assert.equal(C.tracePath(m, null, 3, 0), null, 'no path downwards; constraints are not edges');
});

test('kindOf, coneChildren and search', () => {
  const m = tiny();
  const s = { assigned: { 1: 2 }, selected: { 2: 0, 3: 1 }, values: {} };
  assert.equal(C.kindOf(m, s, 0), 'constant');
  assert.equal(C.kindOf(m, s, 1), 'assigned');
  assert.equal(C.kindOf(m, null, 1), 'root input');
  assert.equal(C.kindOf(m, s, 2), 'equation');
  assert.deepEqual(C.coneChildren(m, s, 2), [1, 0]);  // sorted by name: a.x, physics.c
  assert.deepEqual(C.searchVariables(m, 'b.y').map((v) => v.name), ['b.y']);
  assert.deepEqual(C.searchVariables(m, 'z').map((v) => v.name), ['c.z']);
  assert.deepEqual(C.searchVariables(m, 'why').map((v) => v.name), ['b.y']);
  assert.deepEqual(C.searchVariables(m, ''), []);
});

test('hash state round-trips and falls back to the Ask view', () => {
  const h = C.formatHash({ view: 'cone', var: 'econ.cost.per_token', preset: 'p' });
  assert.deepEqual(C.parseHash(h), { view: 'cone', var: 'econ.cost.per_token', preset: 'p' });
  assert.equal(C.parseHash('#view=nope').view, 'ask');
  assert.equal(C.parseHash('').view, 'ask');
});

test('validateArgs: strict schemas, defaults filled, bad input named', () => {
  const schema = { type: 'object', additionalProperties: false, required: ['id'], properties: {
    id: { type: 'string', minLength: 1, maxLength: 10, pattern: '^[a-z.]+$' },
    n: { type: 'integer', minimum: 1, maximum: 5, default: 3 },
    q: { type: 'string', enum: ['a', 'b'] },
    inputs: { type: 'object', maxProperties: 2 } } };
  assert.deepEqual(C.validateArgs(schema, { id: ' a.b ' }), { ok: true, args: { id: 'a.b', n: 3 } });
  assert.equal(C.validateArgs(schema, {}).field, 'id');
  assert.equal(C.validateArgs(schema, { id: 'a', extra: 1 }).field, 'extra');
  assert.equal(C.validateArgs(schema, { id: 'A' }).field, 'id');
  assert.equal(C.validateArgs(schema, { id: 'a', n: 9 }).field, 'n');
  assert.equal(C.validateArgs(schema, { id: 'a', n: 1.5 }).field, 'n');
  assert.equal(C.validateArgs(schema, { id: 'a', q: 'c' }).field, 'q');
  assert.equal(C.validateArgs(schema, { id: 'a', inputs: { 'x.y': 'no' } }).field, 'inputs.x.y');
  assert.equal(C.validateArgs(schema, { id: 'a', inputs: { a: 1, b: 2, c: 3 } }).field, 'inputs');
  assert.equal(C.validateArgs(schema, [1]).ok, false);
});

test('boundResult keeps results under 1,500 characters', () => {
  const small = { ok: true, tool: 't', x: 1 };
  assert.equal(C.boundResult(small), small);
  const big = { ok: true, tool: 't', rows: Array.from({ length: 500 }, (_, i) => ({ i, text: 'x'.repeat(400) })) };
  const b = C.boundResult(big);
  assert.ok(JSON.stringify(b).length <= 1500, JSON.stringify(b).length);
  assert.equal(b.truncated, true);
  assert.equal(b.ok, true);
});

test('breakdownRows adds the parts and compares with the total', () => {
  const m = tiny();
  const s = { breakdown: { total_var: 3, total: 30.00078, parts: [{ var: 0, value: 30 }, { var: 1, value: 0.00078 }, { var: 2, value: 0 }] } };
  const b = C.breakdownRows(m, s);
  assert.equal(b.rows.length, 3);
  assert.equal(b.sum, 30.00078);
  assert.equal(b.equal, true);
  assert.equal(C.breakdownRows(m, { breakdown: { parts: [] } }), null);
});

// ---- against an exported site (the ctest fixture exports one and sets GSTACK_SITE_DIR)

const siteDir = process.env.GSTACK_SITE_DIR;
function loadData(dir) {
  const ctx = { window: {} };
  vm.createContext(ctx);
  for (const f of ['model', 'scenarios', 'rootdebt', 'validation', 'experiments'])
    vm.runInContext(fs.readFileSync(path.join(dir, 'data', f + '.js'), 'utf8'), ctx);
  return ctx.window.GSTACK_DATA;
}

test('exported data: the .js and .json forms agree', { skip: !siteDir && 'GSTACK_SITE_DIR not set' }, () => {
  const D = loadData(siteDir);
  for (const f of ['model', 'scenarios', 'rootdebt', 'validation', 'experiments']) {
    const j = JSON.parse(fs.readFileSync(path.join(siteDir, 'data', f + '.json'), 'utf8'));
    assert.deepEqual(JSON.parse(JSON.stringify(D[f])), j, f);  // another realm's objects: compare as data
  }
});

test('exported data: the calculator reproduces the resolver to 1e-9 for every preset', { skip: !siteDir && 'GSTACK_SITE_DIR not set' }, () => {
  const D = loadData(siteDir);
  assert.ok(D.scenarios.scenarios.length >= 1);
  for (const s of D.scenarios.scenarios) {
    const vals = C.runCalculator(s.calculator);
    let checked = 0;
    for (const st of s.calculator.steps) {
      const want = s.values[st.var];
      if (typeof want !== 'number') continue;
      // With missing inputs the resolver can still simplify 0 * x to a number; the program reads NaN.
      if (Number.isNaN(vals[st.var]) && s.missing.length) continue;
      assert.ok(C.relativeDifference(vals[st.var], want) <= 1e-9, s.name + ' ' + D.model.variables[st.var].name + ': ' + vals[st.var] + ' vs ' + want);
      checked++;
    }
    assert.ok(checked >= 5, 'checked ' + checked + ' steps of ' + s.name);
    for (const t of s.targets) if (typeof t.value === 'number') assert.ok(C.relativeDifference(vals[t.var], t.value) <= 1e-9, D.model.variables[t.var].name);
    const b = C.breakdownRows(D.model, s);
    if (b) assert.equal(b.equal, true, 'breakdown of ' + s.name + ' adds up');
  }
});

test('exported data: every relation dependency and definition points at a real variable', { skip: !siteDir && 'GSTACK_SITE_DIR not set' }, () => {
  const D = loadData(siteDir);
  const n = D.model.variables.length;
  for (const r of D.model.relations) {
    assert.ok(r.def < n);
    for (const d of r.deps) assert.ok(d >= 0 && d < n, r.name);
  }
  for (const v of D.model.variables) for (const d of v.defs) assert.ok(D.model.relations[d].def === D.model.variables.indexOf(v) || D.model.relations[d].role === 'constraint');
});

test('tracePath with live: only edges the scenario evaluates', () => {
  const m = tiny();
  const s = { assigned: { 2: 5 }, selected: { 3: 1 } };
  assert.equal(C.tracePath(m, s, 0, 3, { live: true }), null, 'b.y is assigned, so physics.c does not reach c.z');
  assert.deepEqual(C.tracePath(m, s, 0, 3).map((h) => h.var), [0, 2, 3], 'the model graph still has the chain');
  assert.deepEqual(C.tracePath(m, { assigned: {}, selected: { 2: 0, 3: 1 } }, 0, 3, { live: true }).map((h) => h.var), [0, 2, 3]);
});
