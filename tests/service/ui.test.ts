// The web UI in a real headless Chromium (Debian's chromium, installed by scripts/ensure-chromium.sh when
// missing), driven by playwright-core: runs list, a run with its highlighted path and timeline, resolving an
// escalation through the form, the ledger page. Saves the README's screenshots under docs/.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/kernel-fixtures.js';
import { runCli } from '../support/cli.js';
import { tempDir } from '../support/temp.js';
import { createPrincipalDirectory } from '../../src/service/index.js';
import { createKernel, loadFlows } from '../../src/kernel/index.js';
import { openLedger } from '../../src/ledger/index.js';
import { GATE_RUN, routeAll, startServer, type TestServer } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
/** The README's screenshots are rewritten with NAVKERNEL_SCREENSHOTS=1; otherwise they go to a temp folder. */
const SHOTS = process.env.NAVKERNEL_SCREENSHOTS === '1' ? path.join(ROOT, 'docs') : tempDir('navkernel-shots-');
/** The flags that work on this machine (no sandbox as root, no background network calls). */
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'];

describe('the web UI in headless Chromium', () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  /** What Chromium reported the UI's Content-Security-Policy refused (issue 35): nothing, for the UI to work. */
  const cspViolations: string[] = [];

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) execFileSync('bash', [path.join(ROOT, 'scripts', 'ensure-chromium.sh')], { stdio: 'inherit', timeout: 590_000 });
    if (!existsSync(path.join(ROOT, 'dist', 'ui', 'index.html'))) execFileSync(process.execPath, [path.join(ROOT, 'dist', 'scripts', 'build-ui.js')], { cwd: ROOT, stdio: 'inherit' });
    const dir = tempDir('navkernel-ui-');
    const file = path.join(dir, 'ledger.sqlite');
    const demo = runCli(['demo', '-q', '--ledger', file, '--run-prefix', 'demo']);
    expect(demo.code, demo.stderr).toBe(0);
    // A run of a flow of one's own, which the server below does not load.
    const own = createKernel({ flows: await loadFlows(path.join(ROOT, 'examples', 'first-flow')), store: openLedger(file) });
    await own.route({ run_id: 'own-1', flow: 'fixbug', step_completed: 'reproduce', status: 'REPRODUCED' });
    await own.close();
    s = await startServer({ file, clock: () => new Date() });
    await routeAll(s.base, GATE_RUN);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS, headless: true });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => console.error('page error:', e.message));
    page.on('console', (m) => {
      if (/Content[- ]Security[- ]Policy/i.test(m.text())) cspViolations.push(m.text());
    });
  }, 600_000);

  afterAll(async () => {
    await browser?.close();
    await s?.close();
  });

  it('lists the runs with status, steps, cost and open escalations', async () => {
    await page.goto(`${s.base}/`);
    await page.waitForSelector('table#runs tbody tr');
    const ids = await page.$$eval('table#runs tbody tr', (rows) => rows.map((r) => r.getAttribute('data-run')));
    expect(ids).toEqual(expect.arrayContaining(['demo-run-1', 'gate-1']));
    const gate = page.locator('tr[data-run="gate-1"]');
    await expect(gate.locator('.badge').textContent()).resolves.toBe('escalated');
    // Routes that need a person have their own column (issue 28.6): gate-1's escalation is one.
    expect(await page.$$eval('table#runs thead th', (ths) => ths.map((th) => th.textContent))).toContain('Needs human');
    await expect(gate.locator('td[data-needs-human]').getAttribute('data-needs-human')).resolves.toBe('1');
    await page.locator('input[name="has_open_escalation"]').check();
    // Polled from here: a string predicate would be eval'd in the page, which the UI's CSP forbids.
    await expect.poll(() => page.locator('table#runs tbody tr').count(), { timeout: 10_000 }).toBe(1);
    expect(await page.$$eval('table#runs tbody tr', (rows) => rows.map((r) => r.getAttribute('data-run')))).toEqual(['gate-1']);
  });

  it('opens a run: the flow drawn with the path taken highlighted, loop counts, the timeline by tier', async () => {
    // The demo routes each flow of its sequence as a run of its own: open the first build run where tier 3 decided.
    const listed = (await (await fetch(`${s.base}/v1/runs?flow=build&limit=500`)).json()) as { runs: { run_id: string }[] };
    let run = '';
    for (const r of listed.runs) {
      const d = (await (await fetch(`${s.base}/v1/runs/${r.run_id}`)).json()) as { decisions: { decision: { tier: number; decision: string } }[] };
      if (d.decisions.some((x) => x.decision.tier === 3) && d.decisions.some((x) => x.decision.decision === 'LOOP')) {
        run = r.run_id;
        break;
      }
    }
    expect(run).not.toBe('');
    await page.goto(`${s.base}/#/runs/${run}`);
    await page.waitForSelector('main[data-ready="run"]');
    const flows = await page.$$eval('.diagram[data-flow]', (ds) => ds.map((d) => d.getAttribute('data-flow')));
    expect(flows[0]).toBe('build');
    // Mermaid drew SVG, with visited steps classed and taken edges thickened.
    const build = page.locator('.diagram[data-flow="build"] svg');
    expect(await build.count()).toBe(1);
    expect(await page.locator('.diagram[data-flow="build"] g.node.visited').count()).toBeGreaterThan(2);
    expect(await page.locator('.diagram[data-flow="build"] g.node:not(.visited)').count()).toBeGreaterThan(0);
    // The whole flow is in view: the drawing is scaled to its panel, never wider (no step cut off at the edge).
    const fit = await page.$eval('.diagram[data-flow="build"]', (d) => ({ panel: d.clientWidth, svg: d.querySelector('svg')!.getBoundingClientRect().width, scroll: d.scrollWidth }));
    expect(fit.svg).toBeGreaterThan(100);
    expect(fit.svg).toBeLessThanOrEqual(fit.panel);
    expect(fit.scroll).toBeLessThanOrEqual(fit.panel);
    // A click shows it at its own size (wider than the panel, scrolling); another fits it again.
    await page.click('.diagram[data-flow="build"] h3');
    const full = await page.$eval('.diagram[data-flow="build"]', (d) => ({ panel: d.clientWidth, svg: d.querySelector('svg')!.getBoundingClientRect().width }));
    expect(full.svg).toBeGreaterThan(full.panel);
    await page.click('.diagram[data-flow="build"] h3');
    expect(await page.$eval('.diagram[data-flow="build"]', (d) => d.querySelector('svg')!.getBoundingClientRect().width <= d.clientWidth)).toBe(true);
    const labels = await page.locator('.diagram[data-flow="build"] g.node.visited').allTextContents();
    expect(labels.join(' ')).toMatch(/✔ \d+×/);
    expect(labels.join(" ")).toMatch(/\d+ loops?/);
    const timeline = page.locator('#timeline > li');
    const detail = (await (await fetch(`${s.base}/v1/runs/${run}`)).json()) as { decisions: { decision: { tier: number } }[] };
    expect(await timeline.count()).toBe(detail.decisions.length);
    const tiers = await timeline.evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-tier'))));
    expect(tiers).toEqual(detail.decisions.map((d) => d.decision.tier));
    expect(await page.locator('#timeline > li.t3 .llm').count()).toBeGreaterThan(0);
    mkdirSync(SHOTS, { recursive: true });
    await page.evaluate(`window.scrollTo(0, document.querySelector('.diagram[data-flow="build"]').getBoundingClientRect().top + window.scrollY - 50)`);
    await page.screenshot({ path: path.join(SHOTS, 'ui-run.png'), fullPage: false });
  });

  it('resolves an open escalation through the form, choosing among the legal targets, and shows it recorded; once the run ends the step is drawn resolved', async () => {
    await page.goto(`${s.base}/#/runs/gate-1`);
    await page.waitForSelector('main[data-ready="run"]');
    expect(await page.locator('.diagram[data-flow="gate"] g.node.escalated').count()).toBe(1);
    expect(await page.locator('#timeline > li').last().getAttribute('class')).toBe('t5');
    const form = page.locator('.escalation form.resolve');
    await page.screenshot({ path: path.join(SHOTS, 'ui-escalation.png'), fullPage: false });
    // The next step is chosen among the legal targets of the decision, from the run's flow (issue 37.7).
    const next = form.locator('select[name="next"]');
    const gateSteps = ['gate-receipts', 'gate-contracts', 'gate-security', 'gate-decide', 'gate-bounce', 'gate-done'];
    await form.locator('select[name="decision"]').selectOption('CONTINUE');
    expect((await next.locator('option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))).sort()).toEqual([...gateSteps].sort());
    await form.locator('select[name="decision"]').selectOption('TERMINATE');
    expect(await next.isDisabled()).toBe(true);
    await form.locator('select[name="decision"]').selectOption('LOOP');
    expect(await next.locator('option').evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value))).toEqual(['gate-decide']);
    await form.locator('select[name="decision"]').selectOption('CONTINUE');
    await next.selectOption('gate-done');
    await form.locator('input[name="by"]').fill('ana');
    await form.locator('textarea[name="reason"]').fill('evidence checked by hand');
    await form.locator('button[type="submit"]').click();
    await page.waitForSelector('.escalation.resolved');
    expect(await page.locator('.escalation.resolved .resolution').textContent()).toMatch(/Resolved by ana .*CONTINUE → gate-done — evidence checked by hand/);
    const e = (await (await fetch(`${s.base}/v1/runs/gate-1`)).json()) as { escalations: { status: string; resolution: { by: string } }[] };
    expect(e.escalations[0]).toMatchObject({ status: 'resolved', resolution: { by: 'ana' } });
    // The run goes on where the person said and ends: the escalated step is drawn resolved, not red, and the move
    // the person chose is a taken edge (issue 37.7).
    await routeAll(s.base, [{ run_id: 'gate-1', flow: 'gate', step_completed: 'gate-done', status: 'DONE' }]);
    await page.goto(`${s.base}/#/`);
    await page.goto(`${s.base}/#/runs/gate-1`);
    await page.waitForSelector('main[data-ready="run"]');
    expect(await page.locator('#run-status').textContent()).toBe('terminated');
    expect(await page.locator('.diagram[data-flow="gate"] g.node.escalated').count()).toBe(0);
    expect(await page.locator('.diagram[data-flow="gate"] g.node.resolved').count()).toBe(1);
    // gate-decide (s3) -> gate-done (s5): the MERGE branch the person's CONTINUE took, drawn as taken.
    const styles = await page.locator('.diagram[data-flow="gate"] svg path').evaluateAll((ps) => ps.filter((p) => /(^|-)L_s3_s5_\d+$/.test(p.id)).map((p) => p.getAttribute('style') ?? ''));
    expect(styles.length).toBe(1);
    expect(styles[0]).toMatch(/stroke:\s*#d9480f/);
  });

  it('a run of a flow serve does not load says how to draw it (--flows)', async () => {
    await page.goto(`${s.base}/#/runs/own-1`);
    await page.waitForSelector('main[data-ready="run"]');
    const note = page.locator('.diagram[data-flow="fixbug"] .not-served');
    expect(await note.textContent()).toBe('(not among the served flows: start navkernel serve --flows DIR with the folder that defines flow fixbug to draw it)');
    expect(await note.locator('code').count()).toBe(1);
  });

  it('draws every sample flow: Mermaid parses the text of `navkernel diagram`', async () => {
    await page.goto(`${s.base}/`);
    const texts = runCli(['diagram', 'build']).stdout;
    expect(texts).toMatch(/^flowchart TD/);
    for (const flow of ['signal', 'plan', 'build', 'review', 'gate', 'deploy', 'rebase']) {
      const text = runCli(['diagram', flow]).stdout;
      const ok = await page.evaluate(async (t) => {
        const m = (globalThis as unknown as { mermaid: { parse(t: string): Promise<unknown> } }).mermaid;
        return Boolean(await m.parse(t));
      }, text);
      expect(ok, flow).toBe(true);
    }
  });

  it('opens a `navkernel report` file offline: the run page, self-contained', async () => {
    const out = path.join(s.dir, 'run.html');
    const r = runCli(['report', 'gate-1', '-o', out, '--ledger', s.file]);
    expect(r.code, r.stderr).toBe(0);
    const requests: string[] = [];
    const offline = await browser.newPage();
    offline.on('request', (req) => requests.push(req.url()));
    await offline.goto(`file://${out}`);
    await offline.waitForSelector('main[data-ready="run"]');
    expect(await offline.locator('.diagram[data-flow="gate"] svg').count()).toBe(1);
    expect(await offline.locator('#timeline > li').count()).toBe(5);
    expect(await offline.locator('.escalation.resolved').count()).toBe(1);
    expect(requests.filter((u) => !u.startsWith('file://') && !u.startsWith('data:'))).toEqual([]);
    await offline.close();
  });

  it('asks for the bearer token when the server has one, then uses it', async () => {
    const t = await startServer({ file: s.file, token: 'ui-token', clock: () => new Date() });
    const tab = await browser.newPage();
    try {
      await tab.goto(`${t.base}/`);
      await tab.waitForSelector('form.token input[name="token"]');
      // Commands are code, not text between literal backticks; the page says how to look without a session.
      const signIn = tab.locator('form.token');
      expect(await signIn.textContent()).not.toContain('`');
      expect(await signIn.locator('code').allTextContents()).toEqual(expect.arrayContaining(['navkernel token new', '--token']));
      expect(await signIn.locator('#without-browser').textContent()).toContain('extraHTTPHeaders');
      await tab.fill('form.token input[name="token"]', 'ui-token');
      await tab.click('form.token button');
      await tab.waitForSelector('table#runs tbody tr[data-run="gate-1"]');
      // The documented recipe for a script or a screenshot: the token as a header, no sign-in, no session.
      const headless = await browser.newContext({ viewport: { width: 1400, height: 1000 }, extraHTTPHeaders: { authorization: 'Bearer ui-token' } });
      try {
        const shot = await headless.newPage();
        await shot.goto(`${t.base}/#/ledger`);
        await shot.waitForSelector('main[data-ready="ledger"]');
        expect(await shot.locator('form.token').count()).toBe(0);
      } finally {
        await headless.close();
      }
    } finally {
      await tab.close();
      await t.close();
    }
  });

  it('moves with the run: a decision routed by another client appears on the open run page within a second, an escalation with its form', async () => {
    const steps = GATE_RUN.map((r) => ({ ...r, run_id: 'live-1' }));
    await routeAll(s.base, steps.slice(0, 1));
    await page.goto(`${s.base}/#/runs/live-1`);
    await page.waitForSelector('main[data-ready="run"]');
    expect(await page.locator('#timeline > li').count()).toBe(1);
    // Let the page's event stream connect before routing.
    await page.waitForTimeout(300);
    await routeAll(s.base, steps.slice(1, 2));
    await page.waitForSelector('#timeline > li[data-seq="2"]', { timeout: 1_000 });
    expect(await page.locator('#sum-steps').textContent()).toBe('2');
    await routeAll(s.base, steps.slice(2));
    await page.waitForSelector('#escalations .escalation form.resolve', { timeout: 2_000 });
    expect(await page.locator('#run-status').textContent()).toBe('escalated');
    await expect.poll(() => page.locator('.diagram[data-flow="gate"] g.node.escalated').count(), { timeout: 10_000 }).toBe(1);
  });

  it('for a team: signs in with a token, shows the principal, hides what it may not do, shows who routed each step, and lists escalations to resolve', async () => {
    const sha = (x: string) => createHash('sha256').update(x).digest('hex');
    const tokens = path.join(s.dir, 'tokens.yaml');
    writeFileSync(tokens, `principals:\n  - { name: audrey, scopes: [read], token_sha256: ${sha('audrey-token')} }\n  - { name: rosa, scopes: [read, resolve], token_sha256: ${sha('rosa-token')} }\n  - { name: runner-a, scopes: [route], token_sha256: ${sha('runner-a-token')} }\n`);
    const t = await startServer({ file: s.file, principals: createPrincipalDirectory({ tokensFile: tokens }), clock: () => new Date() });
    const tab = await browser.newPage();
    try {
      const signIn = async (token: string) => {
        await tab.goto(`${t.base}/`);
        await tab.waitForSelector('form.token input[name="token"]');
        await tab.fill('form.token input[name="token"]', token);
        await tab.click('form.token button');
      };
      await signIn('wrong');
      await tab.waitForSelector('form.token [role="alert"]:has-text("not one the server knows")');
      await signIn('audrey-token');
      await tab.waitForSelector('table#runs tbody tr[data-run="gate-1"]');
      expect(await tab.locator('#principal').textContent()).toBe('audrey');
      expect(await tab.locator('header nav a[data-nav="escalations"]').isHidden()).toBe(true);
      await tab.goto(`${t.base}/#/runs/live-1`);
      await tab.waitForSelector('main[data-ready="run"]');
      expect(await tab.locator('.escalation form.resolve').count()).toBe(0);
      expect(await tab.locator('.escalation').first().textContent()).toMatch(/audrey may not resolve escalations/);
      // Each step names the principal whose token routed it; steps routed without one (live-1's) name nobody.
      expect(await tab.locator('#timeline .principal').count()).toBe(0);
      await routeAll(t.base, GATE_RUN.slice(0, 2).map((r) => ({ ...r, run_id: 'team-1' })), { authorization: 'Bearer runner-a-token' });
      await tab.goto(`${t.base}/#/runs/team-1`);
      await tab.waitForSelector('main[data-ready="run"]');
      expect(await tab.locator('#timeline > li .principal').allTextContents()).toEqual(['by runner-a', 'by runner-a']);
      await tab.click('#sign-out');
      await signIn('rosa-token');
      await tab.waitForSelector('table#runs tbody tr');
      expect(await tab.locator('header nav a[data-nav="escalations"]').isVisible()).toBe(true);
      await tab.goto(`${t.base}/#/escalations`);
      await tab.waitForSelector('main[data-ready="escalations"]');
      const item = tab.locator('.inbox-item[data-run="live-1"]');
      expect(await item.locator('input[name="by"]').count()).toBe(0);
      expect(await item.locator('.resolving-as').textContent()).toBe('rosa (signed in)');
      await item.locator('select[name="decision"]').selectOption('TERMINATE');
      await item.locator('textarea[name="reason"]').fill('stopped from the inbox');
      await item.locator('button[type="submit"]').click();
      await expect.poll(() => tab.locator('.inbox-item[data-run="live-1"]').count(), { timeout: 10_000 }).toBe(0);
      const detail = (await (await fetch(`${t.base}/v1/runs/live-1`, { headers: { authorization: 'Bearer rosa-token' } })).json()) as { escalations: { resolution: unknown }[] };
      expect(detail.escalations[0]!.resolution).toMatchObject({ by: 'rosa', authenticated: true });
    } finally {
      await tab.close();
      await t.close();
    }
  });

  it('shows the ledger: decisions by tier and rule, and cost over time as a chart', async () => {
    await page.goto(`${s.base}/#/ledger`);
    await page.waitForSelector('main[data-ready="ledger"]');
    expect(await page.locator('#by-rule tbody tr').count()).toBeGreaterThan(5);
    expect(await page.locator('#cost-chart canvas').count()).toBeGreaterThan(0);
    // The title and the legend say the same bucket; the legend names series, with no "--" for values (issue 37.7).
    const title = (await page.locator('#cost-title').textContent())!;
    const per = /\((USD per [^)]+)\)/.exec(title)![1]!;
    const legend = (await page.locator('#cost-chart .u-legend').textContent())!;
    expect(legend).toContain(per);
    expect(legend).not.toContain('--');
    expect(legend).not.toMatch(/per bucket/);
    await page.screenshot({ path: path.join(SHOTS, 'ui-ledger.png'), fullPage: false });
  });

  it('ran every page above under its Content-Security-Policy (served with it) without a violation', async () => {
    const res = await page.goto(`${s.base}/`);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('table#runs tbody tr');
    expect(cspViolations).toEqual([]);
  });

  it('a forged frame cannot put another run’s escalation form on a run page (issue 35 item 3)', async () => {
    const tab = await browser.newPage();
    try {
      // Whatever reaches the page as its run's stream (here: a stream replaced on the wire), an escalation of
      // another run is not applied: no form that would resolve it as the signed-in person.
      const forged = JSON.stringify({ escalation_id: 'esc-victim-9', run_id: 'victim', seq: 9, flow: 'gate', step: 'gate-decide', reason: 'forged', opened_ts: new Date().toISOString(), status: 'open', resolution: null });
      await tab.route('**/v1/events?run=*', (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body: `retry: 2000\n\nid: 00000000.1\nevent: escalation\ndata: ${forged}\n\n` }));
      await tab.goto(`${s.base}/#/runs/demo-run-1`);
      await tab.waitForSelector('main[data-ready="run"]');
      // The stream is fetched (and answered with the forged frame) once the page is shown; give it its turns.
      await expect.poll(async () => (await tab.evaluate('performance.getEntriesByType("resource").filter((e) => e.name.includes("/v1/events")).length')) as number, { timeout: 10_000 }).toBeGreaterThan(0);
      await tab.waitForTimeout(300);
      expect(await tab.locator('[data-escalation="esc-victim-9"]').count()).toBe(0);
    } finally {
      await tab.close();
    }
  });
});
