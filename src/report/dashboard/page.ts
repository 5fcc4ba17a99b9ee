/**
 * The live page: one self-contained HTML document (uPlot, the report's styles and chart script,
 * and dashboard.js inlined; no network besides its own server's /events and /report). It holds no
 * run data: dashboard.js fills it from the server's state.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { inlineSafe } from '../escape.ts';
import { loadAssets } from '../html/assets.ts';

/** dashboard.js as the build inlined it into the compiled CLI (scripts/build.mjs); undefined when the sources run. */
declare const PAYSTORM_DASHBOARD_JS: string | undefined;

let script: string | null = null;
function dashboardJs(): string {
  script ??= typeof PAYSTORM_DASHBOARD_JS === 'string' ? PAYSTORM_DASHBOARD_JS : readFileSync(fileURLToPath(new URL('./dashboard.js', import.meta.url)), 'utf8');
  return script;
}

/** What the live page adds to report.html's styles. */
const LIVE_CSS = `
.verdict.live { color: #1e40af; background: #dbeafe; }
.verdict.judging { color: var(--skip); background: var(--skip-bg); }
header.run { border-top: 5px solid #93c5fd; }
header.run.has-violations { border-top-color: var(--fail); }
.facts.counters dd, #elapsed, #time-left { font-variant-numeric: tabular-nums; }
#connection { color: var(--fail); font-weight: 600; }
li.violation .when { color: var(--muted); margin-right: 4px; }
li.violation .msg { margin-top: 2px; font-size: 13px; }
li.violation .msg:first-of-type { font-weight: 600; }
#final .inner { max-width: 1280px; margin: 0 auto; padding: 0 20px 20px; }
#report-frame { width: 100%; height: calc(100vh - 170px); min-height: 480px; border: 1px solid var(--line); border-radius: 6px; background: var(--card); }
`;

export function renderDashboardPage(): string {
  const a = loadAssets();
  const fact = (id: string, label: string) => `<div><dt>${label}</dt><dd id="${id}">-</dd></div>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>paystorm live</title>
<style>${inlineSafe(a.uplotCss, 'style')}</style>
<style>${inlineSafe(a.pageCss, 'style')}</style>
<style>${LIVE_CSS}</style>
</head>
<body data-status="starting" data-updates="0">
<header class="run" id="live-header"><div class="inner">
<span class="verdict live" id="verdict">LIVE</span>
<div><p class="verdict-reason" id="status-line">connecting to paystorm…</p><h1>paystorm run <span class="mono" id="run-id"></span></h1>
<div class="muted" id="plan-line"></div><div id="connection"></div></div>
<dl class="facts">
${fact('elapsed', 'Elapsed')}
${fact('time-left', 'Plan: time left')}
${fact('scenario', 'Scenario')}
${fact('phase', 'Phase')}
</dl>
<dl class="facts counters" id="counters">
${fact('c-requests', 'Requests')}
${fact('c-rate', 'Rate')}
${fact('c-2xx', '2xx')}
${fact('c-4xx', '4xx')}
${fact('c-429', '429')}
${fact('c-5xx', '5xx')}
${fact('c-failures', 'No answer')}
${fact('c-dropped', 'Dropped')}
${fact('c-webhooks', 'Webhooks')}
${fact('c-violations', 'Violations')}
</dl>
</div></header>
<main id="live">
<section><h2 id="violations">Violations</h2><p class="muted" id="violations-note">None confirmed so far.</p><ul class="findings" id="violation-list"></ul></section>
<section><h2 id="charts">Charts</h2><p class="legend-note">x: seconds since the run started, up to the plan's end; updated every few seconds. <span class="swatch fault"></span>shaded: fault windows. Drag across a chart to zoom, double-click to reset.</p>
<div class="charts" id="charts-throughput"></div>
<h2>Latency per operation (p50, p99)</h2>
<div class="charts two" id="charts-latency"></div>
<h2>Rate limit per key</h2>
<p class="legend-note">remaining (X-RateLimit-Remaining) and the limit over time; red dots: 429 answers; ▼ and <span class="swatch edge"></span> dashed vertical lines: window edges.</p>
<div class="charts two" id="charts-rate"></div>
</section>
</main>
<section id="final" hidden><div class="inner"><p>The run ended: its report (<a href="report" target="_blank" rel="noopener">open report.html on its own</a>).</p>
<iframe id="report-frame" title="The run's report"></iframe></div></section>
<script>${inlineSafe(a.uplotJs, 'script')}</script>
<script>${inlineSafe(a.pageJs, 'script')}</script>
<script>${inlineSafe(dashboardJs(), 'script')}</script>
</body>
</html>
`;
}
