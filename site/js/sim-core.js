// gpu_stack observatory: the Simulation view's data shaping, without the DOM (unit-tested with node).
// Reads the exported data/simulation (schema gpu-stack.site.simulation.v1, docs/observatory.md): per
// recovery policy, the run's headline from `gpu-stack simulate --json` and its recovery timeline in
// fixed buckets (seconds per phase, failures, interruptions, checkpoints) plus one row per interruption.
// The page zooms by merging buckets for wide windows and by drawing each interruption to scale for narrow
// ones; served, it asks POST /api/simulation_timeline for finer buckets instead.
(function (root) {
  'use strict';

  // A table {columns, rows} as objects.
  function records(t) {
    if (!t || !t.rows) return [];
    return t.rows.map((r) => Object.fromEntries(t.columns.map((c, i) => [c, r[i]])));
  }

  // The buckets of `timeline` that overlap [from, to), merged `per` at a time so at most `max` remain.
  function windowBuckets(timeline, from, to, max) {
    const rows = records(timeline).filter((b) => b.t_s + timeline.bucket_s > from && b.t_s < to);
    const per = Math.max(1, Math.ceil(rows.length / Math.max(1, max)));
    const out = [];
    for (let i = 0; i < rows.length; i += per) {
      const group = rows.slice(i, i + per);
      const m = { t_s: group[0].t_s, width_s: timeline.bucket_s * group.length };
      for (const c of timeline.columns) if (c !== 't_s') m[c] = group.reduce((s, b) => s + b[c], 0);
      out.push(m);
    }
    return out;
  }

  // Effective training time ratio of a bucket: compute that was kept over the bucket's width.
  const bucketEttr = (b, width) => (b.compute_s) / (width || b.width_s);

  // Cumulative ETTR at the end of each bucket (kept compute since the start over the time since the start).
  function cumulativeEttr(timeline) {
    let kept = 0;
    return records(timeline).map((b) => {
      kept += b.compute_s;
      const t = b.t_s + timeline.bucket_s;
      return { t_s: t, ettr: kept / t };
    });
  }

  // Goodput of a bucket in tokens/s: its kept compute times the run's committed tokens per kept compute second.
  function goodputSeries(run) {
    const perComputeSecond = run.job.work.committed / run.job.time.compute_committed_s;
    return records(run.timeline).map((b) => ({ t_s: b.t_s, tokens_per_s: (b.compute_s / run.timeline.bucket_s) * perComputeSecond }));
  }

  // Interruptions overlapping [from, to).
  function episodesIn(run, from, to) {
    return records(run.timeline.episodes).filter((e) => e.resumed_s > from && e.t_s < to);
  }

  // Simulated interruptions by cause beside the published source's counts (the scenario's own comparison).
  function causesTable(data) {
    const causes = (data.published && data.published.interruptions_by_cause) || [];
    return causes.map((c) => ({ cause: c.cause, category: c.category, simulated: c.simulated, observed: c.observed_count, expected: c.expected }));
  }

  // One row per policy: the numbers `gpu-stack simulate --policy P --json` prints.
  function policyRows(data) {
    return (data.runs || []).map((r) => {
      const interruptions = Object.values(r.job.interruptions || {}).reduce((s, x) => s + x, 0);
      return { policy: r.policy, ettr: r.job.ettr, goodput: r.job.goodput_tokens_per_s, interruptions, lost_gpu_hours: r.job.lost_gpu_hours,
        checkpoints: r.job.checkpoints.durable + r.job.checkpoints.memory, lost_s: r.job.time.compute_lost_s, cli: r.cli };
    });
  }

  // Seconds as the field says them: "54 d", "3.2 h", "12 min", "40 s".
  function duration(s) {
    const a = Math.abs(s);
    if (a >= 86400 * 2) return (s / 86400).toFixed(a >= 86400 * 20 ? 0 : 1) + ' d';
    if (a >= 7200) return (s / 3600).toFixed(1) + ' h';
    if (a >= 120) return (s / 60).toFixed(a >= 1200 ? 0 : 1) + ' min';
    return s.toFixed(a >= 10 ? 0 : 1) + ' s';
  }

  // The zoom ladder: window widths from the whole run down to minutes.
  const ZOOMS = [Infinity, 14 * 86400, 2 * 86400, 6 * 3600, 3600, 15 * 60];
  const ZOOM_LABELS = ['Whole run', '2 weeks', '2 days', '6 hours', '1 hour', '15 minutes'];

  // A window of `width` centred on `centre`, kept inside [0, end].
  function clampWindow(centre, width, end) {
    const w = Math.min(width, end);
    const from = Math.min(Math.max(0, centre - w / 2), end - w);
    return { from, to: from + w };
  }

  const api = { records, windowBuckets, bucketEttr, cumulativeEttr, goodputSeries, episodesIn, causesTable, policyRows, duration, ZOOMS, ZOOM_LABELS, clampWindow };
  root.GStackSim = api;
  if (typeof module === 'object' && module.exports) module.exports = api;
})(typeof window !== 'undefined' ? window : globalThis);
