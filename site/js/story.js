// gpu_stack observatory: the Story view (the overview, a token's journey, the seven questions the product
// answers) and the Glossary view. The words and the variables come from data/story.js (written from
// presets/site/story.toml); every number is the exported preset's own value (data/scenarios.js), the
// validation summary (data/validation.js) or the model's counts (data/model.js). The depth control
// (newcomer, researcher, full trace) changes the explanation only: the values are drawn by one function
// whatever the depth, and the browser test compares them across depths.
// Registers its views in window.GStackViews; app.js calls them with its context.
(function () {
  'use strict';
  const C = window.GStackCore;
  const D = window.GSTACK_DATA || {};
  const DEPTHS = [['newcomer', 'Newcomer'], ['researcher', 'Researcher'], ['trace', 'Full trace']];

  function story() { return D.story && !D.story.missing ? D.story : null; }

  // The exporter resolved every story variable under every preset (story.values, story.relations).
  function storyOf(table, ctx, id) {
    const st = story();
    const s = ctx.scenario();
    const byPreset = st && st[table] && s ? st[table][s.name] : undefined;
    return byPreset ? byPreset[id] : undefined;
  }

  // One value as the page shows it: the number in the unit people quote, SI on hover, data-value raw.
  function valueCell(ctx, id) {
    const v = ctx.model.variables[id];
    const x = storyOf('values', ctx, id);
    const shown = typeof x === 'number' ? C.formatQuantity(v, x) : (v.kind === 'constant' ? C.formatQuantity(v, v.value) : 'not computed under this preset');
    return ctx.el('span', { class: 'num', 'data-var': v.name, 'data-value': String(typeof x === 'number' ? x : ''), title: typeof x === 'number' ? C.siText(v, x) : '' }, shown);
  }

  // The full trace of one value: its selected relation under the preset (or that it is assigned).
  function traceLine(ctx, id) {
    const { el } = ctx;
    const kind = C.kindOf(ctx.model, ctx.scenario(), id);
    const r = storyOf('relations', ctx, id);
    if (kind !== 'equation' || typeof r !== 'number' || r < 0) return el('div', { class: 'muted trace-line' }, kind === 'equation' ? 'not computed under this preset' : kind);
    const rel = ctx.model.relations[r];
    return rel ? el('div', { class: 'trace-line' }, el('code', null, rel.text), ' ', el('span', { class: 'muted' }, rel.loc)) : null;
  }

  function overview(ctx, st) {
    const { el, model } = ctx;
    const counts = model.stats;
    const box = el('section', { class: 'card', id: 'story-overview', 'aria-labelledby': 'h-story-overview' },
      el('h2', { id: 'h-story-overview' }, 'The model at a glance'),
      el('p', { id: 'story-counts' },
        el('strong', { 'data-count': 'systems' }, String(counts.systems)), ' systems, ',
        el('strong', { 'data-count': 'variables' }, String(counts.variables)), ' variables, ',
        el('strong', { 'data-count': 'relations' }, String(counts.relations)), ' relations, ',
        el('strong', { 'data-count': 'root_inputs' }, String(counts.root_inputs)), ' root inputs.'),
      el('h3', null, 'Layers, from physics up'),
      el('ol', { id: 'story-layers', class: 'layers' }, model.systems.map((sys) => el('li', null, el('strong', null, sys.name), ': ', sys.description))));
    if (st.journey && st.journey.length) {
      box.append(el('h3', null, 'A token\u2019s journey, from physics to the invoice'),
        el('ol', { id: 'story-journey', class: 'journey' }, st.journey.map((j) => {
          const v = C.varByName(model, j.var);
          return el('li', { 'data-station': j.station }, el('strong', null, j.station), ': ', ctx.varLink(v.id), ' = ', valueCell(ctx, v.id));
        })));
    }
    return box;
  }

  function special(ctx, q) {
    const { el } = ctx;
    if (q.source === 'validation') {
      const v = D.validation && D.validation.report && D.validation.report.summary ? D.validation.report.summary.throughput : null;
      if (!v) return [el('p', { class: 'muted' }, 'No validation summary in this export.')];
      return [el('p', null, 'Throughput over ', el('strong', { 'data-value': String(v.n) }, String(v.n)), ' published runs: median error ',
        el('strong', { class: 'num', 'data-value': String(v.median_ape) }, C.formatNumber(v.median_ape, 3) + '%'), ', mean ',
        el('strong', { class: 'num', 'data-value': String(v.mean_ape) }, C.formatNumber(v.mean_ape, 3) + '%'), '.')];
    }
    if (q.source === 'stats') {
      const s = ctx.model.stats;
      return [el('p', null, String(s.relations), ' relations over ', String(s.variables), ' variables (', String(s.constants), ' of them universal constants) in ', String(s.systems), ' systems; ', String(s.root_inputs), ' root inputs a preset must give.')];
    }
    return [];
  }

  function renderStory(ctx) {
    const { el, clear, state, model } = ctx;
    const body = clear(document.getElementById('story-body'));
    const st = story();
    if (!st) { body.append(el('p', { class: 'muted' }, 'This export has no story (presets/site/story.toml).')); return; }
    const depth = DEPTHS.some((d) => d[0] === state.depth) ? state.depth : 'newcomer';
    document.getElementById('h-story').textContent = st.title;
    body.append(el('p', { class: 'lede' }, st.lede));
    const control = el('fieldset', { class: 'depth', id: 'story-depth' }, el('legend', null, 'Explain for'),
      DEPTHS.map(([key, label]) => el('label', null,
        el('input', { type: 'radio', name: 'story-depth', value: key, checked: key === depth,
          onchange: () => { state.depth = key; renderStory(ctx); ctx.announce('Story explained for ' + label.toLowerCase() + '; the values are unchanged.'); } }),
        ' ', label)));
    body.append(overview(ctx, st), control);
    body.dataset.depth = depth;
    for (const [i, q] of (st.question || []).entries()) {
      const sec = el('section', { class: 'card story-q', id: 'story-' + q.key, 'data-q': q.key, 'aria-labelledby': 'h-story-' + q.key },
        el('h2', { id: 'h-story-' + q.key }, (i + 1) + '. ' + q.question));
      sec.append(...special(ctx, q));
      const ids = (q.values || []).map((n) => C.varByName(model, n).id);
      if (ids.length) {
        sec.append(el('dl', { class: 'story-values' }, ids.map((id) => [
          el('dt', null, ctx.varLink(id)),
          el('dd', null, valueCell(ctx, id), depth === 'trace' ? traceLine(ctx, id) : null)])));
      }
      const words = depth === 'trace' ? (q.researcher + ' Each value above shows the relation the preset selected for it and where it is written; the Cone browser opens every input below it.') : q[depth];
      sec.append(el('p', { class: 'explain', 'data-depth': depth }, words));
      body.append(sec);
    }
  }

  function renderGlossary(ctx) {
    const { el, clear } = ctx;
    const body = clear(document.getElementById('glossary-body'));
    const st = story();
    const terms = st && st.term ? st.term.slice().sort((a, b) => a.name.localeCompare(b.name)) : [];
    if (!terms.length) { body.append(el('p', { class: 'muted' }, 'This export has no glossary.')); return; }
    body.append(el('dl', { id: 'glossary-terms' }, terms.map((t) => [el('dt', { 'data-term': t.name }, t.name), el('dd', null, t.text)])));
  }

  window.GStackViews = Object.assign(window.GStackViews || {}, { story: renderStory, glossary: renderGlossary });
})();
