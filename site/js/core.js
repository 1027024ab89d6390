// gpu_stack observatory: the page's pure logic (no DOM). Classic script so it loads from file://; under
// Node it is a CommonJS module, which is how tests/site/*.test.js test it.
(function (root) {
  'use strict';

  // ---- numbers

  const SUPERSCRIPT = { '-': '\u207b', 0: '\u2070', 1: '\u00b9', 2: '\u00b2', 3: '\u00b3', 4: '\u2074', 5: '\u2075', 6: '\u2076', 7: '\u2077', 8: '\u2078', 9: '\u2079' };

  // Six significant digits; scientific form (a x 10^b) outside 1e-3 .. 1e6. Never "NaN" on screen.
  function formatNumber(x, digits) {
    const d = digits || 6;
    if (x === null || x === undefined || typeof x !== 'number' || !isFinite(x)) return 'unresolved';
    if (x === 0) return '0';
    const a = Math.abs(x);
    if (a >= 1e6 || a < 1e-3) {
      const [m, e] = x.toExponential(d - 1).split('e');
      const mant = String(Number(m));
      const exp = String(Number(e)).split('').map((c) => SUPERSCRIPT[c]).join('');
      return mant + ' \u00d7 10' + exp;
    }
    const s = String(Number(x.toPrecision(d)));
    const [i, f] = s.split('.');
    const grouped = i.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
    return f ? grouped + '.' + f : grouped;
  }

  // A base-unit value in the variable's display unit.
  function toDisplay(v, base) {
    if (typeof base !== 'number' || !isFinite(base)) return base;
    return base / (v && v.scale ? v.scale : 1);
  }
  function fromDisplay(v, shown) {
    return shown * (v && v.scale ? v.scale : 1);
  }
  // The unit people quote (presets/display_units.toml, exported per variable as `ladder`, smallest rung
  // first): the largest rung the value reaches, as the CLI's text output does; below the first rung, the
  // first rung. Without a ladder, the variable's declared unit.
  function quoted(v, base) {
    const declared = v && v.unit && v.unit !== '1' ? v.unit : '';
    if (typeof base !== 'number' || !isFinite(base)) return { value: base, unit: declared };
    const ladder = v && v.ladder;
    if (!ladder || !ladder.length) return { value: toDisplay(v, base), unit: declared };
    for (let i = ladder.length - 1; i >= 0; i--) if (Math.abs(base) >= ladder[i][1]) return { value: base / ladder[i][1], unit: ladder[i][0] };
    return { value: base / ladder[0][1], unit: ladder[0][0] };
  }
  function formatQuantity(v, base, digits) {
    if (typeof base !== 'number' || !isFinite(base)) return 'unresolved';
    const q = quoted(v, base);
    return formatNumber(q.value, digits) + (q.unit ? ' ' + q.unit : '');
  }
  // The SI form shown on hover and kept in every export: "3.000078e-6 USD·token^-1 (SI)".
  function siText(v, base) {
    if (typeof base !== 'number' || !isFinite(base)) return 'unresolved';
    const unit = v && v.si && v.si !== '1' ? ' ' + v.si : '';
    const n = Number(base.toPrecision(7));
    const a = Math.abs(n);
    return (a >= 1e6 || (a > 0 && a < 1e-3) ? n.toExponential() : String(n)) + unit + ' (SI)';
  }

  // ---- the calculator's stack machine (the same semantics as gs::site::eval_postfix in C++)

  const FUNCS = {
    exp: Math.exp, log: Math.log, sqrt: Math.sqrt, sin: Math.sin, cos: Math.cos, tan: Math.tan, tanh: Math.tanh,
    atan: Math.atan, abs: Math.abs, floor: Math.floor, ceil: Math.ceil,
    log2: (x) => Math.log(x) / Math.log(2), log10: (x) => Math.log(x) / Math.log(10),
    min: (...a) => Math.min(...a), max: (...a) => Math.max(...a),
  };
  const BINARY = {
    '+': (a, b) => a + b, '-': (a, b) => a - b, '*': (a, b) => a * b, '/': (a, b) => a / b, '^': (a, b) => Math.pow(a, b),
    '<': (a, b) => (a < b ? 1 : 0), '<=': (a, b) => (a <= b ? 1 : 0), '>': (a, b) => (a > b ? 1 : 0),
    '>=': (a, b) => (a >= b ? 1 : 0), '==': (a, b) => (a === b ? 1 : 0), '!=': (a, b) => (a !== b ? 1 : 0),
    and: (a, b) => (a !== 0 && b !== 0 ? 1 : 0), or: (a, b) => (a !== 0 || b !== 0 ? 1 : 0),
  };

  // `values` maps a variable id to its value (an object or an array); a missing value reads as NaN.
  function evalPostfix(program, values, local) {
    const st = [];
    const pop = () => {
      if (!st.length) throw new Error('malformed expression (stack underflow)');
      return st.pop();
    };
    for (const n of program) {
      if (typeof n === 'number') st.push(n);
      else if (typeof n === 'string') {
        if (n === 'neg') st.push(-pop());
        else if (n === 'not') st.push(pop() === 0 ? 1 : 0);
        else {
          const f = BINARY[n];
          if (!f) throw new Error('unknown operator ' + n);
          const b = pop();
          const a = pop();
          st.push(f(a, b));
        }
      } else if (n[0] === 'v') {
        const x = values[n[1]];
        st.push(typeof x === 'number' ? x : NaN);
      } else if (n[0] === 'l') st.push(local === undefined ? NaN : local);
      else if (n[0] === 'f' || n[0] === 'p') {
        const count = n[0] === 'f' ? n[2] : n[1];
        if (st.length < count) throw new Error('malformed expression (stack underflow)');
        const args = st.splice(st.length - count, count);
        if (n[0] === 'f') {
          const f = FUNCS[n[1]];
          if (!f) throw new Error('unknown function ' + n[1]);
          st.push(f(...args));
        } else {
          let r = args[args.length - 1];
          for (let i = 0; i + 1 < args.length; i += 2) if (args[i + 1] !== 0) { r = args[i]; break; }
          st.push(r);
        }
      } else throw new Error('unknown node ' + JSON.stringify(n));
    }
    if (st.length !== 1) throw new Error('malformed expression');
    return st[0];
  }

  // Runs a scenario's calculator program. `overrides` maps variable id -> base value. Returns an object
  // id -> value for every input and step.
  function runCalculator(calc, overrides) {
    const vals = {};
    for (const inp of calc.inputs) vals[inp.var] = inp.base === null ? NaN : inp.base;
    if (overrides) for (const k of Object.keys(overrides)) vals[k] = overrides[k];
    for (const s of calc.steps) {
      if (s.iter) {
        const n = evalPostfix(s.iter, vals);
        let x = evalPostfix(s.init, vals);
        for (let i = 0; i < Math.floor(n); i++) x = evalPostfix(s.rhs, vals, x);
        vals[s.var] = x;
      } else vals[s.var] = evalPostfix(s.rhs, vals);
    }
    return vals;
  }

  function relativeDifference(a, b) {
    const m = Math.max(Math.abs(a), Math.abs(b));
    return m === 0 ? 0 : Math.abs(a - b) / m;
  }

  // ---- the model graph

  function indexModel(model) {
    if (model._index) return model._index;
    const byName = new Map();
    model.variables.forEach((v, i) => { v.id = i; byName.set(v.name, i); });
    const dependents = model.variables.map(() => []);  // var -> [{to, rel}]
    model.relations.forEach((r, i) => {
      r.id = i;
      if (r.def < 0 || r.role === 'constraint') return;
      for (const d of r.deps) dependents[d].push({ to: r.def, rel: i });
    });
    model._index = { byName, dependents };
    return model._index;
  }

  function varByName(model, name) {
    const id = indexModel(model).byName.get(name);
    return id === undefined ? null : model.variables[id];
  }

  // Equation, root input, constant or assigned, for one scenario.
  function kindOf(model, scenario, id) {
    const v = model.variables[id];
    if (v.kind === 'constant') return 'constant';
    if (scenario && scenario.assigned && Object.prototype.hasOwnProperty.call(scenario.assigned, id)) return 'assigned';
    if (v.kind === 'root') return 'root input';
    return 'equation';
  }

  // The relation the scenario selected for a variable, else its first definition.
  function relationFor(model, scenario, id) {
    if (scenario && scenario.selected && scenario.selected[id] !== undefined) return model.relations[scenario.selected[id]];
    const v = model.variables[id];
    return v.defs && v.defs.length ? model.relations[v.defs[0]] : null;
  }

  // Direct dependencies: the selected relation's inputs (an assigned variable has none).
  function coneChildren(model, scenario, id) {
    if (kindOf(model, scenario, id) === 'assigned') return [];
    const rel = relationFor(model, scenario, id);
    if (!rel) return [];
    return rel.deps.slice().sort((a, b) => (model.variables[a].name < model.variables[b].name ? -1 : 1));
  }

  // Shortest chain of relations from `fromId` up to `toId` (breadth-first over dependents). Prefers the
  // scenario's selected relations; returns [{var, rel}] where rel links var to the next hop, or null.
  // With opts.live, only the edges the scenario evaluates: no hop into an assigned variable, and only a
  // variable's selected relation where it has one (so a change at `fromId` really reaches `toId`).
  function tracePath(model, scenario, fromId, toId, opts) {
    const { dependents } = indexModel(model);
    const live = opts && opts.live && scenario;
    const allowed = (e) => !live || (!Object.prototype.hasOwnProperty.call(scenario.assigned || {}, e.to) &&
      (!scenario.selected || scenario.selected[e.to] === undefined || scenario.selected[e.to] === e.rel));
    if (fromId === toId) return [{ var: fromId, rel: null }];
    const prev = new Map([[fromId, null]]);
    const queue = [fromId];
    while (queue.length) {
      const v = queue.shift();
      const edges = dependents[v].slice().sort((a, b) => {
        const sa = scenario && scenario.selected && scenario.selected[a.to] === a.rel ? 0 : 1;
        const sb = scenario && scenario.selected && scenario.selected[b.to] === b.rel ? 0 : 1;
        return sa - sb || a.to - b.to;
      });
      for (const e of edges) {
        if (prev.has(e.to) || !allowed(e)) continue;
        prev.set(e.to, { from: v, rel: e.rel });
        if (e.to === toId) {
          const hops = [{ var: toId, rel: null }];
          let cur = toId;
          while (prev.get(cur)) {
            const p = prev.get(cur);
            hops.unshift({ var: p.from, rel: p.rel });
            cur = p.from;
          }
          return hops;
        }
        queue.push(e.to);
      }
    }
    return null;
  }

  // Variables whose name (or symbol, or description) matches every word of the query; names first.
  function searchVariables(model, query, limit) {
    const words = String(query || '').toLowerCase().split(/\s+/).filter(Boolean);
    if (!words.length) return [];
    const hits = [];
    for (const v of model.variables) {
      const name = v.name.toLowerCase();
      const desc = ((v.sym || '') + ' ' + (v.desc || '')).toLowerCase();
      if (!words.every((w) => name.includes(w) || desc.includes(w))) continue;
      const score = (words.every((w) => name.includes(w)) ? 0 : 10) + (name.startsWith(words[0]) ? 0 : 1) + name.length / 1000;
      hits.push({ score, v });
    }
    hits.sort((a, b) => a.score - b.score);
    return hits.slice(0, limit || 20).map((h) => h.v);
  }

  // The cost breakdown, re-added in the page: parts, their sum and whether it equals the total.
  function breakdownRows(model, scenario) {
    const b = scenario && scenario.breakdown;
    if (!b || !b.parts || !b.parts.length) return null;
    let sum = 0;
    const rows = b.parts.map((p) => {
      sum += p.value;
      return { var: p.var, name: model.variables[p.var].name, value: p.value, share: b.total ? p.value / b.total : null };
    });
    return { rows, sum, total: b.total, equal: relativeDifference(sum, b.total) <= 1e-12 };
  }

  // ---- URL state: "#view=cone&var=econ.cost.per_token"

  const VIEWS = ['story', 'ask', 'cone', 'debt', 'trace', 'calc', 'charts', 'compare', 'validation', 'experiments', 'simulation', 'glossary'];
  function parseHash(hash) {
    const p = new URLSearchParams(String(hash || '').replace(/^#/, ''));
    const state = {};
    for (const [k, v] of p) if (v.length <= 300) state[k] = v;
    if (!VIEWS.includes(state.view)) state.view = 'ask';
    return state;
  }
  function formatHash(state) {
    const p = new URLSearchParams();
    for (const k of Object.keys(state)) if (state[k] !== undefined && state[k] !== null && state[k] !== '') p.set(k, state[k]);
    return '#' + p.toString();
  }

  // ---- WebMCP helpers: strict argument checks and bounded results

  // Checks args against a small JSON-schema subset (object, additionalProperties false, string with
  // maxLength/pattern/enum, integer/number with minimum/maximum, boolean, object of numbers). Returns
  // {ok, args} with defaults filled, or {ok:false, field, expected}.
  function validateArgs(schema, args) {
    const a = args === undefined || args === null ? {} : args;
    if (typeof a !== 'object' || Array.isArray(a)) return { ok: false, field: '(arguments)', expected: 'an object' };
    const props = schema.properties || {};
    for (const k of Object.keys(a)) if (!props[k]) return { ok: false, field: k, expected: 'no such argument; allowed: ' + Object.keys(props).join(', ') };
    for (const k of schema.required || []) if (a[k] === undefined) return { ok: false, field: k, expected: 'required' };
    const out = {};
    for (const [k, s] of Object.entries(props)) {
      let x = a[k];
      if (x === undefined) {
        if (s.default !== undefined) out[k] = s.default;
        continue;
      }
      if (s.type === 'string') {
        if (typeof x !== 'string') return { ok: false, field: k, expected: 'a string' };
        x = x.trim();
        if (x.length < (s.minLength || 0) || x.length > (s.maxLength || 300)) return { ok: false, field: k, expected: 'a string of ' + (s.minLength || 0) + ' to ' + (s.maxLength || 300) + ' characters' };
        if (s.pattern && !new RegExp(s.pattern).test(x)) return { ok: false, field: k, expected: 'matching ' + s.pattern };
        if (s.enum && !s.enum.includes(x)) return { ok: false, field: k, expected: 'one of ' + s.enum.join(', ') };
      } else if (s.type === 'integer' || s.type === 'number') {
        if (typeof x !== 'number' || !isFinite(x) || (s.type === 'integer' && !Number.isInteger(x))) return { ok: false, field: k, expected: 'a finite ' + s.type };
        if ((s.minimum !== undefined && x < s.minimum) || (s.maximum !== undefined && x > s.maximum)) return { ok: false, field: k, expected: 'from ' + s.minimum + ' to ' + s.maximum };
      } else if (s.type === 'boolean') {
        if (typeof x !== 'boolean') return { ok: false, field: k, expected: 'true or false' };
      } else if (s.type === 'object') {
        if (typeof x !== 'object' || x === null || Array.isArray(x)) return { ok: false, field: k, expected: 'an object' };
        const keys = Object.keys(x);
        if (s.maxProperties !== undefined && keys.length > s.maxProperties) return { ok: false, field: k, expected: 'at most ' + s.maxProperties + ' entries' };
        for (const kk of keys) {
          if (kk.length > 180 || !/^[A-Za-z0-9][A-Za-z0-9_.:/-]*$/.test(kk)) return { ok: false, field: k + '.' + kk.slice(0, 40), expected: 'a variable name' };
          if (typeof x[kk] !== 'number' || !isFinite(x[kk])) return { ok: false, field: k + '.' + kk, expected: 'a finite number' };
        }
      }
      out[k] = x;
    }
    return { ok: true, args: out };
  }

  const RESULT_BUDGET = 1500;
  // Keeps a result under the budget: strings cut at 300 characters, arrays at 10 items, objects at 24
  // keys, depth 5; then a minimal summary if it still does not fit.
  function boundResult(result, budget) {
    const max = budget || RESULT_BUDGET;
    if (JSON.stringify(result).length <= max) return result;
    const compact = (x, depth) => {
      if (typeof x === 'string') return x.length > 300 ? x.slice(0, 297) + '...' : x;
      if (Array.isArray(x)) {
        if (depth >= 5) return '[' + x.length + ' items]';
        const out = x.slice(0, 10).map((y) => compact(y, depth + 1));
        if (x.length > 10) out.push('[' + (x.length - 10) + ' more]');
        return out;
      }
      if (x && typeof x === 'object') {
        if (depth >= 5) return '{...}';
        const out = {};
        for (const k of Object.keys(x).slice(0, 24)) out[k] = compact(x[k], depth + 1);
        return out;
      }
      return x;
    };
    let c = compact(result, 0);
    c.truncated = true;
    if (JSON.stringify(c).length <= max) return c;
    // Shrink arrays further before giving up.
    const shrink = (x) => {
      if (Array.isArray(x)) return x.slice(0, 3).map(shrink).concat(x.length > 3 ? ['[' + (x.length - 3) + ' more]'] : []);
      if (x && typeof x === 'object') { const o = {}; for (const k of Object.keys(x).slice(0, 12)) o[k] = shrink(x[k]); return o; }
      if (typeof x === 'string' && x.length > 80) return x.slice(0, 77) + '...';
      return x;
    };
    c = shrink(c);
    c.truncated = true;
    if (JSON.stringify(c).length <= max) return c;
    return { ok: result.ok, tool: result.tool, truncated: true, message: 'The result was too large; ask for less (a smaller limit or one id).' };
  }

  const api = {
    formatNumber, formatQuantity, quoted, siText, toDisplay, fromDisplay, evalPostfix, runCalculator, relativeDifference,
    indexModel, varByName, kindOf, relationFor, coneChildren, tracePath, searchVariables, breakdownRows,
    parseHash, formatHash, validateArgs, boundResult, VIEWS, RESULT_BUDGET,
  };
  root.GStackCore = api;
  if (typeof module === 'object' && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
