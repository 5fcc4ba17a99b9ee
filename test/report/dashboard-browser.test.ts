/**
 * The live page in headless Chromium, served by the real server from a LiveRun this test feeds
 * as a run would: records second by second, a phase, violations confirmed while "running", then
 * the verdict. The page must draw the report's charts and grow them, list each violation as it is
 * pushed, never show a secret key, and end on the run's report.html.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import type { Operation } from '../../src/spec/operations.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveRun } from '../../src/engine/index.ts';
import { HISTORY_VERSION, type ExchangeRecord } from '../../src/history/index.ts';
import { writeReports } from '../../src/report/index.ts';
import { DashboardFeed } from '../../src/report/dashboard/feed.ts';
import { startDashboardServer, type DashboardServer } from '../../src/report/dashboard/server.ts';
import { fixtureSummary } from './fixture.ts';
import { chartPoints, launchChromium, watchedPage } from './chromium.ts';

const SECRET = 'svc_test_sk_4eC39HqLyjWDarjtT1zdp7dc';

let browser: Browser;
let dir: string;
let server: DashboardServer | null = null;

beforeAll(async () => {
  browser = await launchChromium();
  dir = await mkdtemp(join(tmpdir(), 'paystorm-dash-browser-'));
}, 60_000);

afterAll(async () => {
  await server?.close();
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

let seq = 0;
function exchange(tEnd: number, status: number, op: Operation): ExchangeRecord {
  return { v: HISTORY_VERSION, kind: 'exchange', seq: seq++, scenario: 'mixed', op, key: 'acme/test/…b605', sent: {}, tIntended: tEnd - 30, tStart: tEnd - 30, tEnd, wall: 0, status, contentType: null, rate: { limit: 120, remaining: 120 - (seq % 120), reset: Math.floor(tEnd / 3000) }, retryAfter: null, json: false, error: null, payment: null, refund: null, list: null, failure: null };
}

describe('the live page in headless Chromium', () => {
  it('grows the charts, lists violations as they are confirmed, and ends on the final report', async () => {
    let now = 0;
    const live = new LiveRun(() => {});
    const feed = new DashboardFeed({ clock: { now: () => now }, runId: 'run-live-1' });
    live.watch(feed);
    const runDir = join(dir, 'run');
    server = await startDashboardServer({ feed, host: '127.0.0.1', port: 0, reportFile: join(runDir, 'report.html'), intervalMs: 250 });
    // One "second" of load: 30 answers across three operations.
    const second = () => {
      for (let i = 0; i < 30; i++) live.record(exchange(now + i * 30, i % 10 === 9 ? 503 : 200, (['create', 'retrieve', 'list'] as const)[i % 3]));
      now += 1000;
    };
    live.plan(60_000, 'about 1 min: mixed load (1 min)');
    live.scenario('mixed', 0, 1);
    live.phase('waiting for payments to settle', 20_000);
    for (let s = 0; s < 5; s++) second();

    const { page, problems, requests } = await watchedPage(browser);
    try {
      await page.goto(server.url);
      await page.waitForFunction(() => Number(document.body.dataset.points ?? 0) > 0, undefined, { timeout: 10_000 });
      const first = await chartPoints(page);
      expect(await page.locator('#chart-throughput canvas').count()).toBe(1);
      expect(await page.locator('#charts-latency .chart').count()).toBe(3);
      expect(await page.locator('#scenario').innerText()).toBe('mixed (1/1)');
      expect(await page.locator('#phase').innerText()).toMatch(/^waiting for payments to settle \(\d+\.\d s left\)$/);
      expect(await page.locator('#time-left').innerText()).toBe('55s');
      expect(await page.locator('#run-id').innerText()).toBe('run-live-1');
      expect(await page.locator('#violation-list li').count()).toBe(0);

      for (let s = 0; s < 5; s++) second();
      await page.waitForFunction((n) => Number(document.body.dataset.points ?? 0) > n, first, { timeout: 10_000 });
      expect(await chartPoints(page)).toBeGreaterThan(first);
      expect(Number(await page.locator('#c-requests').innerText())).toBe(300);
      expect(Number(await page.locator('#c-5xx').innerText())).toBe(30);

      // Confirmed by the oracle while the load runs: on the page before the next tick.
      live.violation({ invariant: 'no-card-data-returned', rules: ['PAY-9'], evidence: { message: `card data returned: card_number; key ${SECRET}`, requestIds: ['req_42'] }, t: 7400 });
      const item = page.locator('#violation-list li[data-invariant="no-card-data-returned"]');
      await item.waitFor({ timeout: 5000 });
      const text = await item.innerText();
      expect(text).toContain('first at 7.4 s');
      expect(text).toContain('1 found');
      expect(text).toContain('PAY-9');
      expect(text).toContain('req_42');
      expect(await item.getAttribute('data-at-end')).toBe('false');
      expect(await page.locator('#c-violations').innerText()).toBe('1');
      expect(await page.evaluate(() => document.body.dataset.status)).toBe('running');
      expect(await page.content()).not.toContain(SECRET);
      // The same rule broken again: the same line, counted.
      live.violation({ invariant: 'no-card-data-returned', rules: ['PAY-9'], evidence: { message: 'card data returned again' }, t: 8100 });
      await page.waitForFunction(() => document.querySelector('#violation-list li')?.getAttribute('data-count') === '2', undefined, { timeout: 5000 });
      expect(await page.locator('#violation-list li').count()).toBe(1);
      expect(await item.innerText()).toContain('8.1 s: card data returned again');

      // The live judge yields to a saturated load: the page says its violations may show late, and stops saying so once it judges as the run goes again.
      live.judging(true);
      await page.waitForFunction(() => document.body.dataset.judgeHeld === 'true', undefined, { timeout: 5000 });
      expect(await page.locator('#violations-note').innerText()).toContain('The judge is yielding to the saturated load: violations found meanwhile show when it catches up');
      live.judging(false);
      await page.waitForFunction(() => document.body.dataset.judgeHeld === 'false', undefined, { timeout: 5000 });
      expect(await page.locator('#violations-note').innerText()).not.toContain('yielding');

      // The verdict: the page shows the run's report.html.
      live.loadEnded();
      const summary = fixtureSummary();
      await writeReports(runDir, summary, { latestDir: join(dir, 'latest'), repro: false });
      live.verdict(summary);
      await page.waitForFunction(() => document.body.dataset.status === 'done', undefined, { timeout: 10_000 });
      const frame = page.frameLocator('#report-frame');
      await expect(frame.locator('#verdict').innerText({ timeout: 10_000 })).resolves.toBe('FAIL');
      expect(await page.locator('#verdict').innerText()).toBe('FAIL');
      expect(await page.locator('#live').isHidden()).toBe(true);
      await server.finish(5000);

      expect(problems).toEqual([]);
      const origin = new URL(server.url).origin;
      expect(requests.filter((u) => !u.startsWith(origin))).toEqual([]);
    } finally {
      await page.close();
    }
  }, 60_000);
});
