/**
 * `paystorm run --dashboard`: a real run against the embedded service with a seeded bug
 * (pay-leaks-card-number: the first create answers a full card number, which
 * no-card-data-returned judges record by record), watched in headless Chromium from its first
 * seconds to its verdict. The page's charts must grow between two looks, the violation must be
 * listed while the run still goes (the live oracle confirms it), and the page must end on the
 * report. The screenshot step saves the page mid-run as test-output/dashboard.png, and as
 * docs/images/dashboard.png (the README's picture) when PAYSTORM_DOCS_IMAGES=1.
 * Bad --dashboard options are refused before any load (exit 3).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartPoints, launchChromium, watchedPage } from '../report/chromium.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const bin = join(root, 'bin/paystorm.js');
const SCREENSHOT = join(root, 'test-output', 'dashboard.png');
const DOCS_IMAGE = join(root, 'docs', 'images', 'dashboard.png');

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

function paystorm(args: string[], onStderr?: (all: string) => void): { child: ChildProcess; done: Promise<Result> } {
  const child = spawn(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, CI: 'true' } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => {
    stderr += d;
    onStderr?.(stderr);
  });
  const hard = setTimeout(() => child.kill('SIGKILL'), 150_000);
  const done = new Promise<Result>((res, rej) => {
    child.on('error', rej);
    child.on('close', (code) => {
      clearTimeout(hard);
      res({ code, stdout, stderr });
    });
  });
  return { child, done };
}

describe.concurrent('bad --dashboard options are refused before any load, exit 3', () => {
  it('a port in use names --dashboard and the fix; nothing was started or written', async () => {
    const busy: Server = createServer();
    await new Promise<void>((r) => busy.listen(0, '127.0.0.1', r));
    const port = (busy.address() as { port: number }).port;
    const out = mkdtempSync(join(tmpdir(), 'paystorm-dash-cli-'));
    try {
      const r = await paystorm(['run', 'mixed', '--duration', '5s', '--dashboard', String(port), '--out', out]).done;
      expect(r.code).toBe(3);
      expect(r.stderr).toContain(`--dashboard: port ${port} is in use on 127.0.0.1; pass a free port (or 0 for any free one).`);
      expect(r.stderr).not.toContain('plan:');
      expect(readdirSync(out)).toEqual([]);
    } finally {
      busy.close();
      rmSync(out, { recursive: true, force: true });
    }
  });

  it('a host that is no address names --dashboard-host', async () => {
    const r = await paystorm(['run', 'mixed', '--dashboard', '0', '--dashboard-host', 'http://localhost:8080']).done;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--dashboard-host: "http:\/\/localhost:8080" is not a host name or IP address: pass .*127\.0\.0\.1/);
  });

  it('a host that is not this machine\'s names --dashboard-host', async () => {
    // TEST-NET-1 (RFC 5737): never an address of this machine.
    const r = await paystorm(['run', 'mixed', '--dashboard', '0', '--dashboard-host', '192.0.2.1']).done;
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('--dashboard-host: 192.0.2.1 is not an address of this machine');
    expect(r.stderr).not.toContain('plan:');
  });

  it('--dashboard-host without --dashboard', async () => {
    const r = await paystorm(['run', 'mixed', '--dashboard-host', '127.0.0.1']).done;
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/--dashboard-host: .*add --dashboard PORT/);
  });
});

describe('a run watched on its live page in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let requests: string[];
  let url = '';
  let out = '';
  let run: ReturnType<typeof paystorm>;
  let midRun: Buffer | null = null;

  beforeAll(async () => {
    browser = await launchChromium();
    out = mkdtempSync(join(tmpdir(), 'paystorm-dash-run-'));
    let announced: (u: string) => void = () => {};
    const urlSeen = new Promise<string>((r) => (announced = r));
    run = paystorm(['run', 'mixed', '--duration', '20s', '--seed', '7', '--bugs', 'pay-leaks-card-number', '--dashboard', '0', '--out', out], (stderr) => {
      const m = /live page: (http:\/\/\S+)/.exec(stderr);
      if (m) announced(m[1]);
    });
    url = await Promise.race([urlSeen, run.done.then((r) => Promise.reject(new Error(`paystorm exited ${r.code} before announcing the page:\n${r.stderr}`)))]);
    ({ page, problems, requests } = await watchedPage(browser));
    // Notes the page's state when the first violation is listed (the render that lists it also sets the status).
    await page.addInitScript(() => {
      const w = window as unknown as { firstViolation: unknown };
      w.firstViolation = null;
      document.addEventListener('DOMContentLoaded', () => {
        const list = document.getElementById('violation-list');
        if (!list) return; // the report in its frame
        new MutationObserver(() => {
          const li = list.querySelector('li');
          if (!li || w.firstViolation) return;
          w.firstViolation = { invariant: li.dataset.invariant, atEnd: li.dataset.atEnd, status: document.body.dataset.status };
        }).observe(list, { childList: true });
      });
    });
    await page.goto(url);
  }, 60_000);

  afterAll(async () => {
    if (midRun) {
      mkdirSync(dirname(SCREENSHOT), { recursive: true });
      writeFileSync(SCREENSHOT, midRun);
      if (process.env.PAYSTORM_DOCS_IMAGES === '1') copyFileSync(SCREENSHOT, DOCS_IMAGE);
    }
    run?.child.kill('SIGKILL');
    await browser?.close();
    if (out) rmSync(out, { recursive: true, force: true });
  });

  it('draws the report\'s charts from the first seconds, and their data grows between two looks', async () => {
    await page.waitForFunction(() => document.body.dataset.status === 'running' && Number(document.body.dataset.points ?? 0) > 0, undefined, { timeout: 30_000 });
    const first = await chartPoints(page);
    const firstRequests = Number(await page.locator('#c-requests').innerText());
    // A chart point can come for a second in which no request ended yet: wait for both to grow (each update is 2 s apart).
    await page.waitForFunction(
      ([n, r]) => Number(document.body.dataset.points ?? 0) > n && Number(document.getElementById('c-requests')?.innerText ?? 0) > r,
      [first, firstRequests] as const,
      { timeout: 15_000 },
    );
    const second = await chartPoints(page);
    expect(second).toBeGreaterThan(first);
    expect(Number(await page.locator('#c-requests').innerText())).toBeGreaterThan(firstRequests);
    expect(await page.evaluate(() => document.body.dataset.status)).toBe('running');
    expect(await page.locator('#chart-throughput canvas').count()).toBe(1);
    expect(await page.locator('#scenario').innerText()).toBe('mixed (1/1)');
    expect(await page.locator('#time-left').innerText()).toMatch(/^\d+s/);
    midRun = await page.screenshot();
  }, 60_000);

  it('screenshot step: the page halfway through the plan', async () => {
    // The server's own state says how far the run is.
    for (;;) {
      const st = (await (await fetch(`${url}state.json`)).json()) as { status: string; plan: { totalMs: number; leftMs: number } | null };
      if (st.status !== 'running' || (st.plan && st.plan.leftMs <= st.plan.totalMs / 2)) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    // A render after that state, so the picture shows it.
    const updates = await page.evaluate(() => Number(document.body.dataset.updates));
    await page.waitForFunction((n) => Number(document.body.dataset.updates) > n, updates, { timeout: 10_000 });
    if ((await page.evaluate(() => document.body.dataset.status)) === 'running') midRun = await page.screenshot();
  }, 60_000);

  it('lists the seeded bug\'s violation while the run still goes', async () => {
    // Until the run is over: the violation, listed while running, or the end.
    await page.waitForFunction(() => (window as unknown as { firstViolation: unknown }).firstViolation !== null || document.body.dataset.status === 'done', undefined, { timeout: 90_000 });
    const first = await page.evaluate(() => (window as unknown as { firstViolation: { invariant: string; atEnd: string; status: string } | null }).firstViolation);
    expect(first).toEqual({ invariant: 'no-card-data-returned', atEnd: 'false', status: 'running' });
  }, 100_000);

  it('shows the final report when the run ends, and the run exits 1', async () => {
    const r = await run.done;
    expect(r.code).toBe(1);
    await page.waitForFunction(() => document.body.dataset.status === 'done', undefined, { timeout: 10_000 });
    await expect(page.frameLocator('#report-frame').locator('#verdict').innerText({ timeout: 10_000 })).resolves.toBe('FAIL');
    expect(await page.locator('#violation-list li[data-invariant="no-card-data-returned"]').count()).toBeGreaterThanOrEqual(1);
    expect(problems.filter((p) => !/ERR_CONNECTION_REFUSED|net::ERR/.test(p))).toEqual([]);
    const origin = new URL(url).origin;
    expect(requests.filter((u) => !u.startsWith(origin))).toEqual([]);
    // The page never showed a key's secret: only labels (acme/test/…b605).
    expect(await page.content()).not.toMatch(/_test_sk_[A-Za-z0-9]{6,}/);
    expect(existsSync(join(out, 'latest', 'report.html'))).toBe(true);
  }, 100_000);
});
