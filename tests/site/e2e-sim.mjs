// End-to-end test of the observatory's Simulation view in headless Chromium, from file:// and served.
// From file://: the policy comparison equals `gpu-stack simulate SCENARIO --policy P --json` (ETTR, goodput
// and interruptions, relative 1e-12: the page shows the CLI's numbers), interruptions by cause equal the
// CLI's published comparison, the timeline's cumulative ETTR ends within 0.005 of the ledger's ETTR (it is
// estimated from the timeline), zooming reaches a 15-minute window that draws its interruptions to scale,
// the keyboard reads and zooms the timeline, the WebMCP tools answer (and refuse an unknown policy), and
// the page fits a phone. Served (`gpu-stack serve --port 0 --site DIR`): a narrow window's buckets come
// from POST /api/simulation_timeline, and its interruptions are the exported ones. Screenshots at desktop
// (1280x800) and phone (390x844) width.
//
//   node e2e-sim.mjs --gpu-stack BIN --site DIR --shots DIR --modules DIR
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium, startServer } from './e2e-lib.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? acc.concat([[a.slice(2), all[i + 1]]]) : acc), []));
for (const k of ['gpu-stack', 'site', 'shots', 'modules']) if (!args[k]) { console.error('e2e-sim: missing --' + k); process.exit(2); }
const chromium = process.env.GSTACK_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromium)) { console.error(`e2e-sim: FAILED: no Chromium at ${chromium} (tools/setup-deps installs it)`); process.exit(1); }
const playwright = createRequire(path.join(path.resolve(args.modules), 'x.js'))('playwright-core');

let failures = 0, checks = 0;
function check(cond, what) { checks++; if (!cond) { failures++; console.error('FAIL: ' + what); } }
const rel = (a, b) => { const m = Math.max(Math.abs(a), Math.abs(b)); return m === 0 ? 0 : Math.abs(a - b) / m; };
const site = path.resolve(args.site);
const data = JSON.parse(fs.readFileSync(path.join(site, 'data', 'simulation.json'), 'utf8'));
check(data.runs.length >= 2, `the export holds runs of ${data.runs.length} policies`);
const simulate = (policy) => JSON.parse(execFileSync(args['gpu-stack'], ['simulate', data.scenario.file, '--policy', policy, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 }));

fs.mkdirSync(args.shots, { recursive: true });
const { context, userDir } = await launchChromium(playwright, chromium);
let server = null;
const errors = [];
try {
  await context.addInitScript(() => {
    window.__registered = [];
    Object.defineProperty(navigator, 'modelContext', { configurable: true, value: { registerTool(tool) { window.__registered.push(tool); } } });
  });
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(20000);
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  await page.goto(pathToFileURL(path.join(site, 'index.html')).href + '#view=simulation');
  await page.waitForSelector('body[data-state="ready"]');
  await page.waitForSelector('#cv-sim-timeline[data-rendered="true"]');

  // The policies side by side: the CLI's numbers.
  const cells = await page.$$eval('#sim-body span[data-policy]', (n) => n.map((x) => [x.dataset.policy, Number(x.dataset.ettr)]));
  check(cells.length >= data.runs.length, `the comparison lists every policy (${cells.length})`);
  const seen = new Set();
  for (const [policy, ettr] of cells) {
    if (seen.has(policy)) continue;
    seen.add(policy);
    const want = simulate(policy).jobs[0];
    check(rel(ettr, want.ettr) <= 1e-12, `ETTR of ${policy}: page ${ettr} vs CLI ${want.ettr}`);
    const run = data.runs.find((r) => r.policy === policy);
    check(rel(run.job.goodput_tokens_per_s, want.goodput_tokens_per_s) <= 1e-12, `goodput of ${policy}`);
    const total = Object.values(want.interruptions).reduce((s, x) => s + x, 0);
    check(Object.values(run.job.interruptions).reduce((s, x) => s + x, 0) === total, `interruptions of ${policy}: ${total}`);
  }

  // Interruptions by cause against the published table, as the CLI compares them.
  const first = simulate(data.runs[0].policy);
  const causes = await page.$$eval('#fig-sim-causes span[data-cause]', (n) => n.map((x) => [x.dataset.cause, Number(x.dataset.simulated)]));
  check(causes.length === first.published_comparison.interruptions_by_cause.length, `every cause of the published table is drawn (${causes.length})`);
  for (const [cause, n] of causes) {
    const want = first.published_comparison.interruptions_by_cause.find((c) => c.cause === cause);
    check(want && want.simulated === n, `interruptions by ${cause}: page ${n} vs CLI ${want && want.simulated}`);
  }
  const figures = await page.$$eval('#sim-body span[data-figure]', (n) => n.map((x) => [x.dataset.figure, Number(x.dataset.simulated)]));
  for (const [id, x] of figures) {
    const want = first.published_comparison.figures.find((f) => f.id === id);
    check(want && rel(x, want.simulated) <= 1e-12, `published figure ${id}: page ${x} vs CLI ${want && want.simulated}`);
  }

  // ETTR over time ends near the ledger's ETTR (the timeline's estimate of lost work, 0.005 absolute).
  const finalEttr = Number(await page.getAttribute('#fig-sim-ettr', 'data-final-ettr'));
  check(Math.abs(finalEttr - first.jobs[0].ettr) <= 0.005, `cumulative ETTR at the end ${finalEttr} vs the ledger's ${first.jobs[0].ettr}`);
  await page.screenshot({ path: path.join(args.shots, 'simulation-desktop.png'), fullPage: true });

  // Zoom from the whole run down to 15 minutes: the window narrows and its interruptions are drawn.
  const win = async () => page.$eval('#fig-sim-timeline', (f) => [Number(f.dataset.from), Number(f.dataset.to), Number(f.dataset.buckets)]);
  let [from, to] = await win();
  check(Math.abs(to - from - data.scenario.horizon_s) < 1, `the timeline starts with the whole run (${to - from} s)`);
  const zooms = await page.$$('#sim-timeline button[data-zoom]');
  await zooms[zooms.length - 1].click();
  await page.waitForSelector('#cv-sim-episodes[data-rendered="true"]');
  [from, to] = await win();
  check(Math.abs(to - from - 900) < 1, `the narrowest zoom is 15 minutes (${to - from} s)`);
  const episodes = Number(await page.getAttribute('#sim-timeline', 'data-episodes'));
  check(episodes >= 1, `the 15-minute window shows its interruptions to scale (${episodes})`);
  await page.screenshot({ path: path.join(args.shots, 'simulation-zoomed-desktop.png'), fullPage: true });
  // Keyboard: arrows read a bucket out, '-' zooms out one step.
  await page.focus('#cv-sim-timeline');
  await page.keyboard.press('ArrowRight');
  const said = await page.textContent('#ro-sim-timeline');
  check(/compute|detection|restart|paused|checkpoint/.test(said), `the arrow keys read the timeline: ${said.slice(0, 80)}`);
  await page.keyboard.press('-');
  [from, to] = await win();
  check(Math.abs(to - from - 3600) < 1, `'-' zooms out to an hour (${to - from} s)`);

  // WebMCP: list, compare, read a window; an unknown policy is refused.
  const call = (name, a) => page.evaluate(([n, x]) => window.__registered.find((t) => t.name === n).execute(x), [name, a]);
  const list = await call('list_simulation_runs', {});
  check(list.ok && list.runs.length === data.runs.length, 'list_simulation_runs lists every run');
  const cmp = await call('compare_recovery_policies', {});
  check(cmp.ok && cmp.policies.every((p) => rel(p.ettr, data.runs.find((r) => r.policy === p.policy).job.ettr) <= 1e-12), 'compare_recovery_policies gives each run\'s ETTR');
  const tl = await call('read_simulation_timeline', { policy: data.runs[0].policy, from_s: 0, to_s: 86400, buckets: 4 });
  check(tl.ok && tl.buckets.length <= 4 && tl.buckets.length >= 1, `read_simulation_timeline buckets a day into at most 4 (${tl.buckets && tl.buckets.length})`);
  const bad = await call('read_simulation_timeline', { policy: 'nope' });
  check(!bad.ok && bad.code === 'UNKNOWN_POLICY', 'an unknown policy is refused');

  // Phone width: no sideways scrolling.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(pathToFileURL(path.join(site, 'index.html')).href + '#view=simulation');
  await page.waitForSelector('#cv-sim-timeline[data-rendered="true"]');
  await page.screenshot({ path: path.join(args.shots, 'simulation-phone.png'), fullPage: true });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  check(overflow <= 1, `the Simulation view fits a phone (overflow ${overflow}px)`);

  // Served: a narrow window's buckets come from the server, and agree with the export's interruptions.
  let port;
  ({ server, port } = await startServer(args['gpu-stack'], site));
  await page.setViewportSize({ width: 1280, height: 800 });
  // Over HTTP the page's 4 MB of data take Chromium tens of seconds on a loaded 2-core machine.
  page.setDefaultTimeout(120000);
  await page.goto(`http://127.0.0.1:${port}/#view=simulation`);
  await page.waitForSelector('body[data-live="on"]');
  await page.waitForSelector('#cv-sim-timeline[data-rendered="true"]');
  const zs = await page.$$('#sim-timeline button[data-zoom]');
  await zs[zs.length - 2].click();  // one hour
  await page.waitForSelector('#fig-sim-timeline[data-source="server"]');
  const [sf, st, sb] = await win();
  check(Math.abs(st - sf - 3600) < 1 && sb === 120, `the server answers an hour in 120 buckets (${st - sf} s, ${sb})`);
  const answer = await page.evaluate(() => window.GStackSimView.server);
  const exported = data.runs[0].timeline.episodes.rows.filter((e) => e[3] > sf && e[0] < st);
  check(answer.episodes.rows.length === exported.length && answer.episodes.rows.every((e, i) => e[0] === exported[i][0] && e[1] === exported[i][1]),
    `the server's interruptions in the window are the exported ones (${answer.episodes.rows.length})`);
  const kept = answer.rows.reduce((s, r) => s + r[1], 0) + answer.rows.reduce((s, r) => s + r.slice(2, 10).reduce((a, b) => a + b, 0), 0);
  check(Math.abs(kept - 3600) < 1e-3, `the server's buckets account for every second of the hour (${kept})`);
  await page.screenshot({ path: path.join(args.shots, 'simulation-served-desktop.png'), fullPage: true });
  check(errors.length === 0, 'no page errors: ' + errors.slice(0, 3).join(' | '));
} finally {
  await context.close();
  fs.rmSync(userDir, { recursive: true, force: true });
  if (server) { server.kill('SIGTERM'); await new Promise((resolve) => server.on('exit', resolve)); }
}
console.log(`e2e-sim: ${checks - failures} of ${checks} checks passed; screenshots in ${path.resolve(args.shots)}`);
process.exit(failures ? 1 : 0);
