// gpu_stack observatory: WebMCP tools, so an agent in the browser can ask what a person can. Every tool
// is read-only (verdicts come from sealed artifacts; no tool can change one), validates its arguments
// before touching the page, updates the visible view, and returns at most 1,500 characters of JSON.
// Registered with the page's model-context API when present (navigator.modelContext, or
// document.modelContext in newer Chrome builds); the page works the same without it.
(function () {
  'use strict';
  const C = window.GStackCore;
  const App = window.GStackApp;
  const status = document.getElementById('webmcp-status');
  if (!C || !App) return;
  const { model } = App;
  const V = (id) => model.variables[id];
  const ID = '^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,179}$';
  let receipt = 0;

  const idString = (description) => ({ type: 'string', minLength: 1, maxLength: 180, pattern: ID, description });
  const presetArg = { type: 'string', minLength: 1, maxLength: 180, pattern: ID, description: 'Preset (scenario) name; default: the one on screen.' };
  const fail = (tool, code, message, extra) => Object.assign({ ok: false, tool, code, message: String(message).slice(0, 320) }, extra || {});

  function usePreset(tool, name) {
    if (!name) return null;
    if (!App.scenarios.some((s) => s.name === name)) return fail(tool, 'UNKNOWN_PRESET', 'No preset ' + name + ' in this site.', { available_ids: App.scenarios.map((s) => s.name) });
    if (App.state.preset !== name) App.navigate({ preset: name });
    return null;
  }
  function varOrFail(tool, name) {
    const v = C.varByName(model, name);
    if (v) return { v };
    const near = C.searchVariables(model, name.split('.').pop(), 5).map((x) => x.name);
    return { err: fail(tool, 'UNKNOWN_VARIABLE', 'No variable ' + name + '.', { did_you_mean: near }) };
  }
  function quantity(id, base) {
    const v = V(id);
    return { name: v.name, value: typeof base === 'number' && isFinite(base) ? C.toDisplay(v, base) : null, unit: v.unit, text: C.formatQuantity(v, base) };
  }

  const tools = [
    {
      name: 'get_observatory_state',
      description: 'Read the page state first: the view on screen, the preset, the headline questions, the presets available, model counts, and the experiments with their verdicts. Use the ids it returns instead of guessing.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      run() {
        const s = App.scenario();
        return {
          active_view: { view: App.state.view, preset: App.state.preset, variable: App.state.var || null },
          presets: App.scenarios.map((x) => x.name),
          questions: model.questions.map((q) => ({ key: q.key, variable: V(q.var).name })),
          model: model.stats,
          missing_inputs: s.missing.length,
          experiments: App.data.experiments.experiments.map((e) => ({ id: e.id, verdict: e.verdict })),
          validation_available: App.data.validation.available,
          suggested_next: 'ask_question, then browse_cone or trace_causal_path',
        };
      },
    },
    {
      name: 'ask_question',
      description: 'Answer a headline question (cost per token, tokens per second, facility power, wall-clock time) under a preset: the value with its unit, the 90% interval when the preset has uncertain inputs, and the run cost breakdown whose parts sum to the total. Shows the Ask view.',
      inputSchema: { type: 'object', additionalProperties: false, properties: {
        question: { type: 'string', enum: ['cost_per_token', 'tokens_per_sec', 'power', 'wallclock'], default: 'cost_per_token', description: 'Which headline question.' },
        preset: presetArg } },
      run(a) {
        const e = usePreset('ask_question', a.preset);
        if (e) return e;
        const q = model.questions.find((x) => x.key === a.question);
        if (!q) return fail('ask_question', 'UNKNOWN_QUESTION', 'This model has no ' + a.question + ' question.');
        App.navigate({ view: 'ask', q: q.key });
        const s = App.scenario();
        const t = s.targets.find((x) => x.var === q.var);
        const b = C.breakdownRows(model, s);
        return {
          preset: s.name,
          answer: quantity(q.var, t ? t.value : null),
          interval: t && t.interval ? { p5: quantity(q.var, t.interval.p5).value, p95: quantity(q.var, t.interval.p95).value, unit: V(q.var).unit } : null,
          missing_inputs: t ? t.missing.slice(0, 10).map((m) => V(m).name) : [],
          breakdown: b ? { parts: b.rows.map((r) => ({ name: r.name, usd: r.value })), sum_usd: b.sum, total_usd: b.total, parts_add_up: b.equal } : null,
        };
      },
    },
    {
      name: 'search_variables',
      description: 'Find variables by words in their name or description (e.g. "pue", "hbm bandwidth"). Returns names, units and descriptions.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['query'], properties: {
        query: { type: 'string', minLength: 1, maxLength: 120, description: 'Words to look for.' },
        limit: { type: 'integer', minimum: 1, maximum: 10, default: 5 } } },
      run(a) {
        const hits = C.searchVariables(model, a.query, a.limit);
        return { matches: hits.map((v) => ({ name: v.name, unit: v.unit, description: (v.desc || '').slice(0, 100) })) };
      },
    },
    {
      name: 'browse_cone',
      description: 'Open a variable in the cone browser: its value, unit, kind (equation, root input, constant, assigned), the relation that defines it with its source location, and its direct dependencies.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['variable'], properties: { variable: idString('Dotted variable name, e.g. econ.cost.per_token.'), preset: presetArg } },
      run(a) {
        const e = usePreset('browse_cone', a.preset);
        if (e) return e;
        const r = varOrFail('browse_cone', a.variable);
        if (r.err) return r.err;
        const v = r.v;
        App.navigate({ view: 'cone', var: v.name, openParam: String(v.id) });
        const s = App.scenario();
        const kind = C.kindOf(model, s, v.id);
        const rel = kind === 'equation' ? C.relationFor(model, s, v.id) : null;
        return {
          variable: quantity(v.id, App.valueOf(v.id)), kind, description: v.desc,
          relation: rel ? { name: rel.name, role: rel.role, expression: rel.text.slice(0, 300), source: rel.loc } : null,
          source: v.loc,
          dependencies: C.coneChildren(model, s, v.id).slice(0, 12).map((d) => ({ name: V(d).name, kind: C.kindOf(model, s, d) })),
        };
      },
    },
    {
      name: 'trace_causal_path',
      description: 'The shortest chain of relations from one variable up to another (e.g. physics.speed_of_light to econ.cost.per_token), hop by hop with values. Shows the Trace view. A chain of relations says how the model computes, not that the world works this way.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['from_node', 'to_node'], properties: {
        from_node: idString('Variable to start from.'), to_node: idString('Variable to reach.'),
        max_nodes: { type: 'integer', minimum: 2, maximum: 40, default: 20, description: 'Refuse paths with more variables than this.' } } },
      run(a) {
        if (a.from_node === a.to_node) return fail('trace_causal_path', 'INVALID_ARGUMENT', 'from_node and to_node must differ.', { field: 'to_node' });
        const f = varOrFail('trace_causal_path', a.from_node);
        if (f.err) return f.err;
        const t = varOrFail('trace_causal_path', a.to_node);
        if (t.err) return t.err;
        App.navigate({ view: 'trace', from: f.v.name, to: t.v.name });
        const hops = C.tracePath(model, App.scenario(), f.v.id, t.v.id);
        if (!hops) return fail('trace_causal_path', 'NO_CAUSAL_PATH', 'No chain of relations leads from ' + f.v.name + ' to ' + t.v.name + '.');
        if (hops.length > a.max_nodes) return fail('trace_causal_path', 'PATH_LIMIT_EXCEEDED', 'The path has ' + hops.length + ' variables; raise max_nodes.', { length: hops.length });
        return {
          length: hops.length,
          nodes: hops.map((h) => ({ name: V(h.var).name, value: quantity(h.var, App.valueOf(h.var)).text })),
          relations: hops.filter((h) => h.rel !== null).map((h) => model.relations[h.rel].name),
          boundary: 'A chain of relations shows how the model computes the target, not evidence that it is right.',
        };
      },
    },
    {
      name: 'calculate',
      description: 'Recompute the headline answers with some inputs changed (values in each input\'s display unit, as listed by the calculator), in the page, from the model\'s own equations. Shows the Calculator view with those inputs; nothing is stored.',
      inputSchema: { type: 'object', additionalProperties: false, properties: {
        inputs: { type: 'object', maxProperties: 12, default: {}, description: 'Variable name -> value in its display unit, e.g. {"par.n_gpus": 16}.', additionalProperties: { type: 'number' } },
        preset: presetArg } },
      run(a) {
        const e = usePreset('calculate', a.preset);
        if (e) return e;
        const s = App.scenario();
        const overrides = {};
        for (const [name, x] of Object.entries(a.inputs)) {
          const v = C.varByName(model, name);
          const inp = v && s.calculator.inputs.find((i) => i.var === v.id && !i.constant);
          if (!inp) return fail('calculate', 'INVALID_ARGUMENT', name + ' is not an input of this preset\'s calculator.', { field: 'inputs.' + name, expected: 'an assigned input, e.g. ' + s.calculator.inputs.filter((i) => i.main).slice(0, 4).map((i) => V(i.var).name).join(', ') });
          overrides[v.id] = C.fromDisplay(v, x);
        }
        App.setCalcInputs(overrides);
        App.navigate({ view: 'calc' });
        const vals = C.runCalculator(s.calculator, overrides);
        return { preset: s.name, changed: Object.keys(a.inputs), answers: model.questions.map((q) => ({ key: q.key, ...quantity(q.var, vals[q.var]) })) };
      },
    },
    {
      name: 'compare_root_families',
      description: 'Root debt: families of root inputs ranked by blast radius (how many variables depend on them), and the inputs with the largest influence (elasticity) on cost per token under the preset.',
      inputSchema: { type: 'object', additionalProperties: false, properties: { limit: { type: 'integer', minimum: 1, maximum: 10, default: 5 }, preset: presetArg } },
      run(a) {
        const e = usePreset('compare_root_families', a.preset);
        if (e) return e;
        App.navigate({ view: 'debt' });
        const rd = App.data.rootdebt;
        return {
          families_total: rd.families.length,
          families: rd.families.slice(0, a.limit).map((f) => ({ family: f.family, blast_radius: f.weight, roots: f.roots })),
          influence_on_cost_per_token: App.scenario().influence.rows.slice(0, a.limit).map((r) => ({ name: V(r.var).name, elasticity: r.elasticity, status: r.status })),
        };
      },
    },
    {
      name: 'inspect_root_family',
      description: 'One family of root inputs: its members with their blast radius and whether the preset assigns them.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['family'], properties: { family: idString('Family name, e.g. gpu or econ.power.') } },
      run(a) {
        const f = App.data.rootdebt.families.find((x) => x.family === a.family);
        if (!f) return fail('inspect_root_family', 'UNKNOWN_FAMILY', 'No root family ' + a.family + '.', { available_ids: App.data.rootdebt.families.slice(0, 10).map((x) => x.family) });
        App.navigate({ view: 'debt' });
        const dep = new Map(App.data.rootdebt.roots.map((r) => [r.var, r.dependents]));
        return { family: f.family, blast_radius: f.weight, members: f.members.slice(0, 10).map((m) => ({ name: V(m).name, dependents: dep.get(m), kind: C.kindOf(model, App.scenario(), m) })) };
      },
    },
    {
      name: 'inspect_run',
      description: 'Validation: one published training run, with each reported number against the model\'s prediction and the error. Without run_id, the error summary.',
      inputSchema: { type: 'object', additionalProperties: false, properties: { run_id: idString('Run id from the validation table.') } },
      run(a) {
        App.navigate({ view: 'validation' });
        const val = App.data.validation;
        if (!val.available) return fail('inspect_run', 'EMPTY_RESULT', 'No validation data in this site: ' + val.reason);
        if (!a.run_id) return { runs: val.report.rows.length, summary: val.report.summary, summary_tier_a: val.report.summary_tier_a };
        const row = val.report.rows.find((r) => r.id === a.run_id);
        if (!row) return fail('inspect_run', 'UNKNOWN_RUN', 'No run ' + a.run_id + '.', { available_ids: val.report.rows.slice(0, 10).map((r) => r.id) });
        return { run: { id: row.id, tier: row.tier, built: row.built, reason: row.reason || null, metrics: (row.metrics || []).map((m) => ({ metric: m.metric, unit: m.unit, reported: m.reported, predicted: m.predicted, ape_percent: m.ape })) } };
      },
    },
    {
      name: 'open_evidence',
      description: 'Open an experiment (E001..E006) or a run artifact (its sha256, with or without "sha256:") and read its frozen protocol gates and verdict. Verdicts are read from sealed artifacts; they cannot be changed here.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['evidence_id'], properties: { evidence_id: idString('Experiment id or artifact hash.') } },
      run(a) {
        const id = a.evidence_id.replace(/^(sha256:|artifact:)/, '');
        const exps = App.data.experiments.experiments;
        let e = exps.find((x) => x.id.toLowerCase() === id.toLowerCase());
        let art = null;
        if (!e) for (const x of exps) { const f = x.artifacts.find((y) => y.artifact_sha256 === id || (id.length >= 12 && y.artifact_sha256.startsWith(id))); if (f) { e = x; art = f; break; } }
        if (!e) return fail('open_evidence', 'UNKNOWN_EVIDENCE', 'No experiment or artifact ' + a.evidence_id + '.', { available_ids: exps.map((x) => x.id) });
        App.navigate({ view: 'experiments' });
        const card = document.getElementById('exp-' + e.id);
        if (card && card.scrollIntoView) card.scrollIntoView({ block: 'start' });
        const view = (x) => ({ artifact_sha256: x.artifact_sha256, verdict: x.verdict, conclusion: x.conclusion, seal_valid: x.seal_valid, protocol_matches: x.protocol_matches,
          policies: x.runs.map((r) => ({ policy: r.policy, verdict: r.verdict, gates: r.falsifiers.map((f) => ({ id: f.falsifier_id, survived: f.survived })) })) });
        return {
          evidence: { kind: art ? 'run_artifact' : 'experiment', experiment_id: e.id, title: e.protocol ? e.protocol.title : null, verdict: e.verdict,
            gates: e.protocol ? e.protocol.falsifiers.map((f) => ({ id: f.falsifier_id, metric: f.metric, rule: f.op + ' ' + f.threshold })) : [],
            artifacts: art ? [view(art)] : e.artifacts.map(view) },
          read_only: true,
        };
      },
    },
    {
      name: 'list_simulation_runs',
      description: 'Simulation: the scenario this site simulated (GPUs, days, seed) and its runs, one per recovery policy on the same failure trace, each with its ETTR and interruption count. Shows the Simulation view.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      run() {
        const sim = App.data.simulation;
        if (!sim || !sim.runs || !sim.runs.length) return fail('list_simulation_runs', 'EMPTY_RESULT', 'This site was exported without a simulation.');
        App.navigate({ view: 'simulation' });
        const sc = sim.scenario;
        return { scenario: { name: sc.name, file: sc.file, gpus: sc.gpus, days: sc.horizon_s / 86400, seed: sc.seed }, runs: window.GStackSimView.api.runs(),
          suggested_next: 'compare_recovery_policies, or read_simulation_timeline for one policy' };
      },
    },
    {
      name: 'compare_recovery_policies',
      description: 'Simulation: every recovery policy side by side on the same failure trace: ETTR, goodput (tokens/s), interruptions, lost GPU-hours, checkpoints, and the CLI command that prints the same numbers.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      run() {
        const sim = App.data.simulation;
        if (!sim || !sim.runs || !sim.runs.length) return fail('compare_recovery_policies', 'EMPTY_RESULT', 'This site was exported without a simulation.');
        App.navigate({ view: 'simulation' });
        const rows = window.GStackSimView.api.compare();
        const best = rows.reduce((a, b) => (b.ettr > a.ettr ? b : a));
        return { policies: rows.map((r) => ({ policy: r.policy, ettr: r.ettr, goodput_tokens_per_s: r.goodput, interruptions: r.interruptions, lost_gpu_hours: r.lost_gpu_hours, checkpoints: r.checkpoints })),
          highest_ettr: best.policy };
      },
    },
    {
      name: 'read_simulation_timeline',
      description: 'Simulation: a window of one policy\'s recovery timeline, aggregated into at most `buckets` buckets (seconds in each phase, failures, interruptions, checkpoints) and the interruptions in it (cause, lost compute, detection and recovery times). Times are seconds from the start of the run. Shows that window.',
      inputSchema: { type: 'object', additionalProperties: false, required: ['policy'], properties: {
        policy: idString('Recovery policy, from list_simulation_runs.'),
        from_s: { type: 'number', minimum: 0, maximum: 1e9, description: 'Window start, seconds (default 0).' },
        to_s: { type: 'number', minimum: 0, maximum: 1e9, description: 'Window end, seconds (default the end of the run).' },
        buckets: { type: 'integer', minimum: 1, maximum: 60, description: 'At most this many buckets (default 12).' } } },
      run(a) {
        const sim = App.data.simulation;
        if (!sim || !sim.runs || !sim.runs.length) return fail('read_simulation_timeline', 'EMPTY_RESULT', 'This site was exported without a simulation.');
        if (!sim.runs.some((r) => r.policy === a.policy)) return fail('read_simulation_timeline', 'UNKNOWN_POLICY', 'No run for policy ' + a.policy + '.', { available_ids: sim.runs.map((r) => r.policy) });
        const from = a.from_s === undefined ? 0 : a.from_s, to = a.to_s === undefined ? sim.scenario.horizon_s : Math.min(a.to_s, sim.scenario.horizon_s);
        if (!(to > from)) return fail('read_simulation_timeline', 'INVALID_ARGUMENT', 'to_s must be after from_s.', { field: 'to_s' });
        const t = window.GStackSimView.api.timeline(a.policy, from, to, a.buckets || 12);
        window.GStackSimView.api.show(a.policy, from, to);
        App.navigate({ view: 'simulation' });
        const round = (x) => Math.round(x * 10) / 10;
        return { policy: a.policy, from_s: from, to_s: to, interruptions: t.episodes.length,
          buckets: t.buckets.map((b) => ({ t_s: b.t_s, width_s: b.width_s, compute_s: round(b.compute_s), lost_s: round(b.lost_s), down_s: round(b.detect_s + b.restart_s + b.reconfigure_s + b.paused_s + b.waiting_s), interruptions: b.interruptions })),
          first_interruptions: t.episodes.slice(0, 5).map((e) => ({ t_s: round(e.t_s), cause: e.cause, lost_s: round(e.lost_s), detected_after_s: round(e.detected_s - e.t_s), resumed_after_s: round(e.resumed_s - e.t_s) })) };
      },
    },
  ];

  function invoke(name, rawArgs) {
    const tool = tools.find((t) => t.name === name);
    let result;
    if (!tool) result = fail(name, 'UNKNOWN_TOOL', 'No tool ' + name + '.', { available_ids: tools.map((t) => t.name) });
    else {
      const chk = C.validateArgs(tool.inputSchema, rawArgs);
      if (!chk.ok) result = fail(name, 'INVALID_ARGUMENT', 'Invalid argument ' + chk.field + ': expected ' + chk.expected + '.', { field: chk.field, expected: chk.expected });
      else {
        try {
          result = tool.run(chk.args);
          if (result.ok === undefined) result = Object.assign({ ok: true, tool: name }, result);
        } catch (err) {
          result = fail(name, 'TOOL_ERROR', err && err.message ? err.message : String(err));
        }
      }
    }
    result.receipt_id = 'wmcp-' + String(++receipt).padStart(4, '0');
    const bounded = C.boundResult(result);
    App.announce('Agent tool ' + name + ': ' + (bounded.ok ? 'done' : 'refused (' + bounded.code + ')') + '.');
    return bounded;
  }

  const api = { tools: tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema })), toolNames: tools.map((t) => t.name), invoke, supported: false, registered: [] };
  window.GStackWebMCP = api;

  const ctx = (navigator && navigator.modelContext) || document.modelContext;
  if (!ctx || typeof ctx.registerTool !== 'function') {
    status.textContent = 'WebMCP: not available in this browser; the ' + tools.length + ' agent tools are idle.';
    window.dispatchEvent(new CustomEvent('gstack:webmcp-unavailable', { detail: { reason: 'no modelContext.registerTool' } }));
    return;
  }
  api.supported = true;
  const abort = new AbortController();
  for (const t of tools) {
    try {
      ctx.registerTool({
        name: t.name, description: t.description, inputSchema: t.inputSchema,
        annotations: { readOnlyHint: true },
        execute: async (args) => invoke(t.name, args),
      }, { signal: abort.signal });
      api.registered.push(t.name);
    } catch (err) {
      status.textContent = 'WebMCP: registering ' + t.name + ' failed: ' + (err && err.message);
    }
  }
  api.dispose = () => abort.abort();
  status.textContent = 'WebMCP: ' + api.registered.length + ' agent tools registered (read-only).';
  window.dispatchEvent(new CustomEvent('gstack:webmcp-ready', { detail: { registered: api.registered } }));
})();
