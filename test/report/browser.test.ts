/**
 * Opens report.html in Debian's headless Chromium (driven by playwright-core, never a
 * downloaded browser): the charts must render with data, with no console or page errors.
 * Saves test-output/report.png for a human look. CI installs chromium, so its absence
 * is a failure, not a skip.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReports } from '../../src/report/index.ts';
import { fixtureSummary } from './fixture.ts';

const CHROMIUM = '/usr/bin/chromium';
const OUTPUT = resolve('test-output');

let browser: Browser;
let dir: string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does this) to run the report browser test`);
  }
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync'],
  });
  dir = await mkdtemp(join(tmpdir(), 'paystorm-html-'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Opened {
  page: Page;
  problems: string[];
  requests: string[];
}

async function open(summary: ReturnType<typeof fixtureSummary>, name: string): Promise<Opened> {
  const runDir = join(dir, name);
  await writeReports(runDir, summary, { latestDir: join(dir, `${name}-latest`) });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(pathToFileURL(join(runDir, 'report.html')).href);
  await page.waitForFunction(() => document.body.dataset.chartsRendered !== undefined, undefined, { timeout: 10_000 });
  return { page, problems, requests };
}

describe('report.html in headless Chromium', () => {
  it('renders every chart with data, shows the evidence, and logs no errors', async () => {
    const summary = fixtureSummary();
    const { page, problems, requests } = await open(summary, 'full');
    try {
      const state = await page.evaluate(() => ({
        rendered: document.body.dataset.chartsRendered,
        expected: document.body.dataset.chartsExpected,
        charts: Array.from(document.querySelectorAll<HTMLElement>('.chart')).map((el) => {
          const canvas = el.querySelector('canvas');
          return { id: el.id, points: Number(el.dataset.points), w: canvas?.width ?? 0, h: canvas?.height ?? 0 };
        }),
      }));
      expect(problems).toEqual([]);
      // Only the page itself was loaded: no network, no other file.
      expect(requests.filter((u) => !u.endsWith('/report.html'))).toEqual([]);
      expect(state.charts).toHaveLength(7);
      expect(state.rendered).toBe(String(state.charts.length));
      expect(state.expected).toBe(state.rendered);
      for (const c of state.charts) {
        expect(c.points, c.id).toBeGreaterThan(0);
        expect(c.w, c.id).toBeGreaterThan(200);
        expect(c.h, c.id).toBeGreaterThan(100);
      }

      // Something was drawn, not just a blank canvas: the throughput chart has non-white pixels inside its plot area.
      const inked = await page.evaluate(() => {
        const canvas = document.querySelector<HTMLCanvasElement>('#chart-throughput canvas')!;
        const ctx = canvas.getContext('2d')!;
        const { data } = ctx.getImageData(0, 0, canvas.width, canvas.height);
        let n = 0;
        for (let i = 0; i < data.length; i += 4) if (data[i + 3] > 0 && (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200)) n++;
        return n;
      });
      expect(inked).toBeGreaterThan(1000);

      const row = page.locator('tr[data-invariant="rate-limit-window"]');
      await expect(row.getAttribute('data-status')).resolves.toBe('fail');
      const evidence = await row.innerText();
      expect(evidence).toContain('req_8c1f0a9e2b');
      expect(evidence).toContain('window starting at 30.2 s');
      expect(evidence).toContain('30212.4');
      const idem = await page.locator('tr[data-invariant="idempotency-single-object"]').innerText();
      expect(idem).toContain('race-12');
      expect(idem).toContain('</script><script>alert(1)</script>'); // shown as text, not run
      expect(await page.locator('tr[data-invariant="list-walk-once"] pre.stack').textContent()).toContain('at walkPages');
      expect(await page.locator('#verdict').innerText()).toBe('FAIL');

      await mkdir(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'report.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('shows "no data" instead of failing for a run with no metrics', async () => {
    const summary = { ...fixtureSummary(), metrics: {}, faults: [] };
    const { page, problems } = await open(summary, 'empty');
    try {
      expect(problems).toEqual([]);
      expect(await page.evaluate(() => document.body.dataset.chartsRendered)).toBe('0');
      expect(await page.locator('#chart-throughput .nodata').innerText()).toBe('no data');
      expect(await page.locator('tr[data-invariant="rate-limit-window"]').count()).toBe(1);
      await mkdir(OUTPUT, { recursive: true });
      await page.screenshot({ path: join(OUTPUT, 'report-empty.png'), fullPage: true });
    } finally {
      await page.close();
    }
  }, 60_000);
});
