// End-to-end test of the Story and Glossary views (issue 19 item 5) in headless Chromium, on the site
// exported from file://: the overview's counts equal `gpu-stack stats --json`, the token's journey and
// every answer of the seven questions equal `gpu-stack resolve --json` under the page's preset (relative
// 1e-9), the depth control (newcomer, researcher, full trace) changes the explanation and never a value,
// and the glossary lists its terms in order. Screenshots at desktop and phone width.
//
//   node e2e-story.mjs --gpu-stack BIN --site DIR --shots DIR --modules DIR
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './e2e-lib.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? acc.concat([[a.slice(2), all[i + 1]]]) : acc), []));
for (const k of ['gpu-stack', 'site', 'shots', 'modules']) if (!args[k]) { console.error('e2e-story: missing --' + k); process.exit(2); }
const chromium = process.env.GSTACK_CHROMIUM || '/usr/bin/chromium';
if (!fs.existsSync(chromium)) { console.error(`e2e-story: FAILED: no Chromium at ${chromium} (tools/setup-deps installs it)`); process.exit(1); }
const playwright = createRequire(path.join(path.resolve(args.modules), 'x.js'))('playwright-core');

let failures = 0;
let checks = 0;
function check(cond, what) { checks++; if (!cond) { failures++; console.error('FAIL: ' + what); } }
const rel = (a, b) => { const m = Math.max(Math.abs(a), Math.abs(b)); return m === 0 ? 0 : Math.abs(a - b) / m; };
const cli = (...a) => JSON.parse(execFileSync(args['gpu-stack'], a, { encoding: 'utf8', maxBuffer: 64 << 20 }));

const index = pathToFileURL(path.join(path.resolve(args.site), 'index.html')).href;
fs.mkdirSync(args.shots, { recursive: true });
const { context, userDir } = await launchChromium(playwright, chromium);
const errors = [];
try {
  const page = context.pages()[0] || await context.newPage();
  page.setDefaultTimeout(20000);
  page.on('pageerror', (e) => errors.push('pageerror: ' + e.message));
  page.on('console', (m) => { if (m.type() === 'error') errors.push('console: ' + m.text()); });
  await page.goto(index + '#view=story');
  await page.waitForSelector('body[data-state="ready"]');
  await page.waitForSelector('#view-story:not([hidden]) .story-q');
  const preset = await page.evaluate(() => window.GStackApp.scenario().name);

  // The overview's counts are the image's.
  const stats = cli('stats', '--json').stats;
  for (const key of ['systems', 'variables', 'relations', 'root_inputs']) {
    const shown = Number(await page.textContent(`#story-counts [data-count="${key}"]`));
    check(shown === stats[key], `overview ${key}: ${shown} vs stats ${stats[key]}`);
  }
  check((await page.$$('#story-layers li')).length === stats.systems, 'one layer per system');

  // Every value on the page (journey and answers) against the CLI.
  const values = async () => page.$$eval('#story-body .num[data-var]', (n) => n.map((x) => [x.dataset.var, x.dataset.value]));
  const shown = await values();
  let compared = 0;
  for (const [name, value] of shown) {
    if (value === '') continue;
    const want = cli('resolve', name, '--preset', preset, '--json');
    if (!want.complete) { check(false, `${name} is shown as ${value} but the CLI leaves it unresolved`); continue; }
    compared++;
    check(rel(Number(value), want.value) <= 1e-9, `story ${name}: ${value} vs CLI ${want.value} (1e-9)`);
  }
  check(compared >= 20, `the story shows resolved values (${compared} compared)`);
  check((await page.$$('#story-journey li')).length >= 5, 'the journey has its stations');
  check((await page.$$('.story-q')).length === 7, 'seven questions');

  // The depth control changes the explanation, never a value.
  const texts = {};
  for (const depth of ['newcomer', 'researcher', 'trace']) {
    await page.check(`#story-depth input[value="${depth}"]`);
    await page.waitForSelector(`#story-body[data-depth="${depth}"]`);
    const now = await values();
    check(JSON.stringify(now) === JSON.stringify(shown), `values identical at depth ${depth}`);
    texts[depth] = await page.$$eval('.story-q .explain', (n) => n.map((x) => x.textContent).join('|'));
    if (depth === 'trace') check((await page.$$('.story-q .trace-line')).length > 0, 'the full trace shows the relations');
    else check((await page.$$('.story-q .trace-line')).length === 0, `no relations at depth ${depth}`);
  }
  check(texts.newcomer !== texts.researcher && texts.researcher !== texts.trace, 'each depth explains differently');

  // The accuracy answer is the exported validation summary.
  const acc = await page.$$eval('#story-accuracy .num', (n) => n.map((x) => Number(x.dataset.value)));
  const summary = await page.evaluate(() => { const v = window.GSTACK_DATA.validation; return v.available ? v.report.summary.throughput : null; });
  if (summary) check(acc.length === 2 && acc[0] === summary.median_ape && acc[1] === summary.mean_ape, 'accuracy: median and mean APE of the export');

  await page.screenshot({ path: path.join(args.shots, 'story-desktop.png'), fullPage: true });
  await page.goto(index + '#view=glossary');
  await page.waitForSelector('#view-glossary:not([hidden]) #glossary-terms');
  const terms = await page.$$eval('#glossary-terms dt', (n) => n.map((x) => x.textContent));
  check(terms.length >= 10, `glossary terms (${terms.length})`);
  check(JSON.stringify(terms) === JSON.stringify(terms.slice().sort((a, b) => a.localeCompare(b))), 'glossary in alphabetical order');
  for (const t of ['MFU', 'PUE', 'Root input']) check(terms.includes(t), `glossary explains ${t}`);

  await page.setViewportSize({ width: 390, height: 844 });
  for (const v of ['story', 'glossary']) {
    await page.goto(index + '#view=' + v);
    await page.waitForSelector(`#view-${v}:not([hidden])`);
    await page.screenshot({ path: path.join(args.shots, `${v}-phone.png`), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    check(overflow <= 1, `${v} fits a phone without sideways scrolling (overflow ${overflow}px)`);
  }
  check(errors.length === 0, 'no page errors: ' + errors.slice(0, 3).join(' | '));
} finally {
  await context.close();
  fs.rmSync(userDir, { recursive: true, force: true });
}
console.log(`e2e-story: ${checks - failures} of ${checks} checks passed`);
process.exit(failures ? 1 : 0);
