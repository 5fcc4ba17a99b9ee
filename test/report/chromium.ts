/**
 * Debian's headless Chromium driven by playwright-core (never a downloaded browser), for the live
 * page's browser tests. CI installs chromium, so its absence is a failure, not a skip.
 */
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

const CHROMIUM = '/usr/bin/chromium';

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does this) to run the browser tests`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run', '--disable-quic', '--disable-sync'],
  });
}

/** A page that records console errors and warnings, page errors, and every URL it requests. */
export async function watchedPage(browser: Browser): Promise<{ page: Page; problems: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1 });
  const problems: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console.${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  page.on('request', (r) => requests.push(r.url()));
  return { page, problems, requests };
}

/** Sum of the points the page's charts draw (dashboard.js keeps it on body[data-points]). */
export const chartPoints = (page: Page): Promise<number> => page.evaluate(() => Number(document.body.dataset.points ?? 0));
