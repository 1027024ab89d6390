// Unit tests of the Simulation view's data shaping (site/js/sim-core.js), run with `node --test`. With
// GSTACK_SITE_DIR set to an exported site, they also check the exported runs: every bucket accounts for
// its seconds, the buckets count every interruption and checkpoint, and the timeline's totals agree with
// the run's ledger (the CLI's numbers) within the stated tolerances.
'use strict';
const test = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const S = require('../../site/js/sim-core.js');

const PHASES = ['compute_s', 'lost_s', 'checkpoint_s', 'detect_s', 'restart_s', 'reconfigure_s', 'paused_s', 'waiting_s', 'other_s'];
const COLUMNS = ['t_s'].concat(PHASES, ['failures', 'interruptions', 'checkpoints']);

function timeline(rows, bucket) {
  return { bucket_s: bucket, columns: COLUMNS, rows, episodes: { columns: ['t_s', 'cause', 'detected_s', 'resumed_s', 'lost_s', 'recovery'], rows: [] } };
}

test('windowBuckets keeps the buckets of a window and merges them to at most max', () => {
  const rows = [];
  for (let k = 0; k < 10; ++k) rows.push([k * 100, 90, 10, 0, 0, 0, 0, 0, 0, 0, 1, k % 2, 3]);
  const t = timeline(rows, 100);
  const all = S.windowBuckets(t, 0, 1000, 100);
  assert.equal(all.length, 10);
  const merged = S.windowBuckets(t, 0, 1000, 3);  // ceil(10/3) = 4 per group: 4 + 4 + 2
  assert.deepEqual(merged.map((b) => b.width_s), [400, 400, 200]);
  assert.equal(merged[0].compute_s, 360);
  assert.equal(merged.reduce((s, b) => s + b.interruptions, 0), 5);
  const part = S.windowBuckets(t, 250, 420, 100);  // buckets starting 200, 300, 400
  assert.deepEqual(part.map((b) => b.t_s), [200, 300, 400]);
});

test('cumulative ETTR is kept compute since the start over the time since the start', () => {
  const t = timeline([[0, 50, 0, 0, 50, 0, 0, 0, 0, 0, 0, 0, 0], [100, 100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]], 100);
  assert.deepEqual(S.cumulativeEttr(t).map((x) => x.ettr), [0.5, 0.75]);
});

test('windows stay inside the run, and durations read as the field says them', () => {
  assert.deepEqual(S.clampWindow(10, 100, 1000), { from: 0, to: 100 });
  assert.deepEqual(S.clampWindow(990, 100, 1000), { from: 900, to: 1000 });
  assert.deepEqual(S.clampWindow(500, Infinity, 1000), { from: 0, to: 1000 });
  assert.equal(S.duration(54 * 86400), '54 d');
  assert.equal(S.duration(900), '15.0 min');
  assert.equal(S.duration(7200), '2.0 h');
});

const siteDir = process.env.GSTACK_SITE_DIR;
test('the exported runs account for every second, interruption and checkpoint', { skip: !siteDir && 'GSTACK_SITE_DIR not set' }, () => {
  const data = JSON.parse(fs.readFileSync(path.join(siteDir, 'data', 'simulation.json'), 'utf8'));
  assert.equal(data.schema, 'gpu-stack.site.simulation.v1');
  assert.ok(data.runs.length >= 2);
  for (const run of data.runs) {
    const buckets = S.records(run.timeline);
    const end = data.scenario.horizon_s;
    for (const b of buckets) {
      const inside = Math.min(end, b.t_s + run.timeline.bucket_s) - b.t_s;  // the last bucket may pass the end
      const phases = PHASES.reduce((s, p) => s + b[p], 0);
      assert.ok(Math.abs(phases - inside) < 1e-6 * inside, `${run.policy} bucket at ${b.t_s}: ${phases} s of ${inside}`);
    }
    const sum = (c) => buckets.reduce((s, b) => s + b[c], 0);
    assert.equal(sum('interruptions'), run.timeline.episodes.rows.length, `${run.policy}: interruptions counted once each`);
    assert.equal(sum('checkpoints'), run.job.checkpoints.durable + run.job.checkpoints.memory, `${run.policy}: checkpoints`);
    // The ledger's compute time (kept + lost) is the timeline's compute time exactly; the split between
    // kept and lost is the timeline's estimate (since the last checkpoint), within 1% of the wall time.
    const compute = sum('compute_s') + sum('lost_s');
    const ledger = run.job.time.compute_committed_s + run.job.time.compute_lost_s;
    assert.ok(Math.abs(compute - ledger) <= 1e-6 * end, `${run.policy}: compute ${compute} s vs the ledger's ${ledger} s`);
    assert.ok(Math.abs(sum('lost_s') - run.job.time.compute_lost_s) <= 0.01 * end, `${run.policy}: lost ${sum('lost_s')} s vs the ledger's ${run.job.time.compute_lost_s} s`);
  }
});
