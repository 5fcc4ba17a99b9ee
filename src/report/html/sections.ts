/** The static parts of report.html (tables, evidence), rendered on the server so they read without JavaScript. */
import type { RunMetrics } from '../../spec/scenario.ts';
import type { Evidence, InvariantResult, Summary } from '../../spec/summary.ts';
import { escapeHtml as h } from '../escape.ts';
import { sortInvariants, sortThresholds } from '../order.ts';
import { countResults, findingLine, formatDuration, formatMs, formatValue, SCENARIO_STATUS_TEXT, scenarioActivity, thresholdLabel, sortedFindings, verdictLine, verdictReason } from '../verdict.ts';
import { executorLine, loadFacts, ms } from '../load.ts';
import { rateBoundarySvg } from '../rate-boundary.ts';
import type { ChartSpec } from './chart-data.ts';

const STATUS_TEXT: Record<InvariantResult['status'], string> = { pass: 'pass', fail: 'fail', error: 'error', 'not-exercised': 'not exercised' };

export function headerSection(s: Summary, m: RunMetrics): string {
  const c = countResults(s);
  const fact = (label: string, value: string) => `<div><dt>${h(label)}</dt><dd>${h(value)}</dd></div>`;
  return `<header class="run ${s.verdict}"><div class="inner">
<span class="verdict ${s.verdict}" id="verdict">${s.verdict.toUpperCase()}</span>
<div>${s.snapshot ? `<p class="snapshot" id="snapshot"><strong>Snapshot</strong> of a run still going, judged at ${h(formatDuration(s.snapshotAtMs ?? s.duration_ms))} on the history so far; the final report replaces it.</p>` : ''}<p class="verdict-reason" id="verdict-reason">${h(verdictReason(s))}</p><h1>paystorm run <span class="mono">${h(s.runId)}</span></h1>
<div class="muted">${h(s.target.url)}${s.target.embedded ? ' (embedded target)' : ''} · started ${h(s.started_at)}</div></div>
<dl class="facts">
${fact('Duration', formatDuration(s.duration_ms))}
${fact('Complete', s.complete ? 'yes' : 'no (interrupted or capped)')}
${fact('Exit code', String(s.exitCode))}
${fact('Invariants', `${c.invariants.fail} fail · ${c.invariants.error} error · ${c.invariants['not-exercised']} not exercised · ${c.invariants.pass} pass`)}
${fact('Thresholds', `${c.thresholds.breached} breached of ${s.thresholds.length}`)}
${fact('Requests', `${m.requests} (${m.failures} failed, ${m.dropped} dropped)`)}
</dl>
<p class="verdict-line">${h(verdictLine(s))}.</p>
<nav class="toc"><a href="#findings">Findings</a><a href="#load">Load</a><a href="#invariants">Invariants</a><a href="#thresholds">Thresholds</a><a href="#charts">Charts</a><a href="#latency">Latency table</a><a href="#faults">Faults</a><a href="#run">Scenarios, target, keys</a></nav>
</div></header>`;
}

/** Findings, warnings first, right after the verdict. */
export function findingsSection(s: Summary): string {
  const fs = sortedFindings(s);
  const body = fs.length
    ? `<ul class="findings">${fs.map((f) => `<li class="finding ${f.level}" data-finding="${h(f.id)}" data-level="${f.level}"><span class="badge ${f.level}">${h(f.level)}</span> <span class="mono">${h(f.id)}</span> ${h(f.text)}${f.rules?.length ? ` <span class="rules">${f.rules.map((r) => `<code>${h(r)}</code>`).join(' ')}</span>` : ''}</li>`).join('')}</ul>`
    : '<p class="muted">No findings.</p>';
  return `<section><h2 id="findings">Findings</h2>${body}</section>`;
}

/** What was measured: requests, achieved vs target rate, latency, statuses, errors, dropped, faults; and the rate-limit boundary. */
export function loadSection(s: Summary): string {
  const f = loadFacts(s);
  const fact = (label: string, value: string) => `<div><dt>${h(label)}</dt><dd>${h(value)}</dd></div>`;
  const st = f.statuses;
  const facts = [
    fact('Requests', `${f.requests} in ${formatDuration(f.durationMs)} (${f.rps.toFixed(1)}/s)`),
    ...f.executors.map((e) => fact('Rate', executorLine(e))),
    fact(f.latencyApprox ? 'Latency (slowest series)' : 'Latency', f.latency ? `p50 ${ms(f.latency.p50)} · p90 ${ms(f.latency.p90)} · p99 ${ms(f.latency.p99)} · p99.9 ${ms(f.latency.p999)} · max ${ms(f.latency.max)}` : 'no answered requests'),
    fact('Statuses', `2xx ${st['2xx']} · 4xx ${st['4xx']} · 429 ${st['429']} · 5xx ${st['5xx']}`),
    fact('Errors (no answer)', String(st.failure)),
    fact('Dropped iterations', String(f.dropped)),
    fact('Fault windows', f.faults.length ? f.faults.map((x) => `${x.label} ${(x.from / 1000).toFixed(1)}–${(x.to / 1000).toFixed(1)} s`).join('; ') : 'none'),
  ];
  const rb = s.rateBoundary;
  const boundary = rb
    ? `<h2 id="rate-boundary">Rate-limit boundary</h2><p id="rate-boundary-text">${h(rb.text)}.</p><p class="muted">${h(rb.why)}.</p>${rateBoundarySvg(rb)}`
    : '';
  return `<section><h2 id="load">Load</h2><dl class="facts load" id="load-facts">${facts.join('\n')}</dl>${boundary}</section>`;
}

function evidenceBlock(e: Evidence): string {
  const rows: string[] = [];
  const list = (label: string, xs: readonly (string | number)[] | undefined, code = true) => {
    if (xs && xs.length) rows.push(`<dt>${h(label)}</dt><dd>${xs.map((x) => (code ? `<code>${h(String(x))}</code>` : h(String(x)))).join(', ')}</dd>`);
  };
  list('request ids', e.requestIds);
  list('payment ids', e.paymentIds);
  list('keys', e.keys);
  list('idempotency keys', e.idemKeys);
  list('times (ms)', e.times?.map(formatMs), false);
  list('history seqs', e.seqs, false);
  if (e.repro) rows.push(`<dt>repro</dt><dd><a href="${h(e.repro)}"><code>${h(e.repro)}</code></a></dd>`);
  const bodies = (e.bodies ?? []).map((b) => `<dt>body</dt><dd><pre>${h(b)}</pre></dd>`);
  return `<div class="example"><div class="msg">${h(e.message)}</div>${rows.length || bodies.length ? `<dl>${rows.join('')}${bodies.join('')}</dl>` : ''}</div>`;
}

function invariantRow(i: InvariantResult): string {
  const rules = i.rules.map((r) => `<code>${h(r)}</code>`).join(' ');
  let detail = i.reason ? `<div>${h(i.reason)}</div>` : '';
  if (i.examples.length) {
    const more = i.violations > i.examples.length ? ` (showing ${i.examples.length} of ${i.violations})` : '';
    detail += `<details class="evidence"${i.status === 'fail' ? ' open' : ''}><summary>evidence${more}</summary>${i.examples.map(evidenceBlock).join('')}</details>`;
  }
  if (i.error) detail += `<details class="error"><summary>stack</summary><pre class="stack">${h(i.error)}</pre></details>`;
  return `<tr class="status-${i.status}" data-invariant="${h(i.id)}" data-status="${i.status}">
<td><span class="badge ${i.status}">${STATUS_TEXT[i.status]}</span></td>
<td><div class="inv-id">${h(i.id)}</div><div class="inv-title">${h(i.title)}</div></td>
<td class="rules">${rules}</td>
<td class="num">${i.violations}</td>
<td class="num">${i.checked}</td>
<td>${detail}</td></tr>`;
}

export function invariantsSection(s: Summary): string {
  const body = s.invariants.length
    ? `<table class="data" id="invariants-table"><thead><tr><th>Status</th><th>Invariant</th><th>Rules</th><th class="num">Violations</th><th class="num">Checked</th><th>Reason and evidence</th></tr></thead><tbody>
${sortInvariants(s.invariants).map(invariantRow).join('\n')}
</tbody></table>`
    : '<p class="muted">No invariants were evaluated.</p>';
  return `<section><h2 id="invariants">Invariants</h2>${body}</section>`;
}

export function thresholdsSection(s: Summary): string {
  const body = s.thresholds.length
    ? `<table class="data" id="thresholds-table"><thead><tr><th>Status</th><th>Metric</th><th>Expression</th><th class="num">Value</th></tr></thead><tbody>
${sortThresholds(s.thresholds)
  .map((t) => `<tr><td><span class="badge ${t.ok ? 'ok' : 'breached'}">${t.ok ? 'ok' : 'breached'}</span></td><td><code>${h(t.metric)}</code></td><td><code>${h(thresholdLabel(t, s.scenarios))}</code></td><td class="num">${h(formatValue(t.value))}</td></tr>`)
  .join('\n')}
</tbody></table>`
    : '<p class="muted">No thresholds were set.</p>';
  return `<section><h2 id="thresholds">Thresholds</h2>${body}</section>`;
}

function chartBox(c: ChartSpec): string {
  return `<div class="chart" id="${h(c.id)}" data-group="${c.group}"><h3>${h(c.title)}</h3><div class="chart-body"></div></div>`;
}

export function chartsSection(charts: ChartSpec[], faultCount: number): string {
  const group = (g: ChartSpec['group']) => charts.filter((c) => c.group === g);
  const latency = group('latency');
  const rate = group('rate');
  const note = `<p class="legend-note">x: seconds since the run started. ${
    faultCount ? '<span class="swatch fault"></span>shaded: fault windows (labelled by toxic type and link). ' : 'No faults were injected. '
  }Drag across a chart to zoom, double-click to reset.</p>`;
  return `<section><h2 id="charts">Charts</h2>${note}
<div class="charts">${group('throughput').map(chartBox).join('')}</div>
<h2>Latency per operation (p50, p99)</h2>
${latency.length ? `<div class="charts two">${latency.map(chartBox).join('')}</div>` : '<div class="nodata">no data</div>'}
<h2>Rate limit per key</h2>
<p class="legend-note">remaining (X-RateLimit-Remaining) and the limit over time; red dots: 429 answers; ▼ and <span class="swatch edge"></span> dashed vertical lines: window edges (X-RateLimit-Reset changed).</p>
${rate.length ? `<div class="charts two">${rate.map(chartBox).join('')}</div>` : '<div class="nodata">no data</div>'}
</section>`;
}

export function latencySection(m: RunMetrics): string {
  const rows: string[] = [];
  for (const [op, byClass] of Object.entries(m.latency)) {
    for (const [cls, l] of Object.entries(byClass)) {
      const n = (v: number) => `<td class="num">${h(formatValue(Math.round(v * 10) / 10))}</td>`;
      rows.push(`<tr><td><code>${h(op)}</code></td><td>${h(cls)}</td><td class="num">${l.count}</td>${n(l.min)}${n(l.mean)}${n(l.p50)}${n(l.p90)}${n(l.p99)}${n(l.p999)}${n(l.max)}</tr>`);
    }
  }
  const table = rows.length
    ? `<table class="data" id="latency-table"><thead><tr><th>Operation</th><th>Outcome</th><th class="num">Count</th><th class="num">min</th><th class="num">mean</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">p99.9</th><th class="num">max</th></tr></thead><tbody>${rows.join('\n')}</tbody></table>`
    : '<div class="nodata">no data</div>';
  const trends = Object.entries(m.trends);
  const trendTable = trends.length
    ? `<h2>paystorm trends (ms)</h2><table class="data" id="trends-table"><thead><tr><th>Trend</th><th class="num">Count</th><th class="num">min</th><th class="num">mean</th><th class="num">p50</th><th class="num">p90</th><th class="num">p99</th><th class="num">max</th></tr></thead><tbody>${trends
        .map(([name, t]) => `<tr><td><code>${h(name)}</code></td><td class="num">${t.count}</td>${[t.min, t.mean, t.p50, t.p90, t.p99, t.max].map((v) => `<td class="num">${h(formatValue(Math.round(v * 10) / 10))}</td>`).join('')}</tr>`)
        .join('\n')}</tbody></table>`
    : '';
  return `<section><h2 id="latency">Latency by operation and outcome (ms)</h2>${table}${trendTable}</section>`;
}

export function faultsSection(s: Summary): string {
  const body = s.faults.length
    ? `<table class="data" id="faults-table"><thead><tr><th>Window (s)</th><th>Type</th><th>Link</th><th>Proxy</th><th>Name</th><th>Stream</th><th class="num">Toxicity</th><th>Attributes</th></tr></thead><tbody>${s.faults
        .map(
          (f) =>
            `<tr><td class="num">${(f.tStart / 1000).toFixed(1)} – ${(f.tEnd / 1000).toFixed(1)}</td><td>${h(f.type)}</td><td>${h(f.link)}</td><td>${h(f.proxy)}</td><td><code>${h(f.name)}</code></td><td>${h(f.stream)}</td><td class="num">${f.toxicity}</td><td><code>${h(JSON.stringify(f.attributes))}</code></td></tr>`,
        )
        .join('\n')}</tbody></table>`
    : '<p class="muted">No faults were injected.</p>';
  return `<section><h2 id="faults">Faults</h2>${body}</section>`;
}

export function runSection(s: Summary): string {
  // With how far each got (`data-status`), when the summary knows: an interrupted run lists scenarios that never started.
  const known = s.scenarios.some((x) => x.status !== undefined);
  const scenarios = s.scenarios.length
    ? `<table class="data" id="scenarios-table"><thead><tr><th>Scenario</th>${known ? '<th>Status</th><th>Requests</th>' : ''}<th>Rules</th></tr></thead><tbody>${s.scenarios
        .map(
          (x) =>
            `<tr data-scenario="${h(x.name)}"${x.status ? ` data-status="${h(x.status)}"` : ''}><td><code>${h(x.name)}</code></td>${known ? `<td>${x.status ? `<span class="badge scenario-${h(x.status)}">${h(SCENARIO_STATUS_TEXT[x.status])}</span>` : ''}</td><td>${h(scenarioActivity(x))}</td>` : ''}<td class="rules">${x.rules.map((r) => `<code>${h(r)}</code>`).join(' ')}</td></tr>`,
        )
        .join('\n')}</tbody></table>`
    : '<p class="muted">No scenarios were selected.</p>';
  const keys = s.keys.length
    ? `<table class="data" id="keys-table"><thead><tr><th>Key (label)</th><th>Merchant</th><th>Mode</th></tr></thead><tbody>${s.keys
        .map((k) => `<tr><td><code>${h(k.label)}</code></td><td>${h(k.merchant)}</td><td>${h(k.mode)}</td></tr>`)
        .join('\n')}</tbody></table>`
    : '<p class="muted">No keys recorded.</p>';
  const target = `<table class="data" id="target-table"><tbody>
<tr><th>URL</th><td><code>${h(s.target.url)}</code></td></tr>
<tr><th>Embedded</th><td>${s.target.embedded ? 'yes (paystorm started the reference service)' : 'no'}</td></tr>
<tr><th>Presentation</th><td>${h(s.target.presentation ?? 'unknown')}</td></tr>
<tr><th>Summary version</th><td>${s.version}</td></tr></tbody></table>`;
  return `<section><h2 id="run">Scenarios</h2>${scenarios}<h2>Target</h2>${target}<h2>Keys</h2>${keys}</section>`;
}
