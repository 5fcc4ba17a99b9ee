/**
 * The baseline comparison and the soak drift in every report: console and summary.md lines,
 * and report.html sections with inline SVG plots (CDF of baseline vs this run; per-window
 * series with their trend), so they read without JavaScript.
 */
import type { Summary } from '../spec/summary.ts';
import type { BaselineComparison, ComparisonRow, DistributionPlot, RegressionResult } from '../oracle/baseline.ts';
import type { Drift, DriftSeries } from '../oracle/trend.ts';
import { escapeHtml as h } from './escape.ts';

export function comparisonOf(s: Summary): BaselineComparison | null {
  const c = s.comparison as unknown as BaselineComparison | undefined;
  return c && Array.isArray(c.rows) ? c : null;
}

export function driftOf(s: Summary): Drift | null {
  const d = s.drift as unknown as Drift | undefined;
  return d && Array.isArray(d.series) ? d : null;
}

const num = (v: number | null, unit: ComparisonRow['unit'] | DriftSeries['unit']): string => {
  if (v === null || !Number.isFinite(v)) return '–';
  if (unit === 'share') return `${(v * 100).toFixed(2)}%`;
  return v >= 100 ? `${v.toFixed(0)} ms` : v >= 1 ? `${v.toFixed(1)} ms` : `${v.toFixed(2)} ms`;
};
const ratio = (r: number | null) => (r === null || !Number.isFinite(r) ? '–' : `×${r.toFixed(2)}`);
const conf = (c: number | null) => (c === null ? '–' : `${(c * 100).toFixed(1)}%`);

/** One sentence: how many regression thresholds held. */
export function comparisonHeadline(c: BaselineComparison): string {
  const bad = c.regressions.filter((r) => !r.ok).length;
  return `vs baseline ${c.baseline.runId} (${c.baseline.source}): ${bad ? `${bad} regression${bad > 1 ? 's' : ''}` : 'no regression'} in ${c.regressions.length} regression threshold${c.regressions.length === 1 ? '' : 's'}`;
}

function regressionLine(r: RegressionResult): string {
  return `${r.ok ? 'ok      ' : 'REGRESSED'} ${r.expr}: ${r.note}`;
}

/** Plain-text lines (console and the markdown code block). */
export function comparisonLines(c: BaselineComparison, maxRows = 40): string[] {
  const out = [comparisonHeadline(c), `test: ${c.test}`];
  for (const r of c.regressions) out.push(regressionLine(r));
  out.push('');
  const rows = [['', 'BASELINE', 'THIS RUN', 'RATIO', 'P(WORSE)'], ...c.rows.slice(0, maxRows).map((r) => [r.label, num(r.base, r.unit), num(r.value, r.unit), ratio(r.ratio), conf(r.confidence)])];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  for (const r of rows) out.push(r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
  return out;
}

export function driftHeadline(d: Drift): string {
  const sig = d.series.filter((s) => s.significant && (s.pctPerHour ?? 1) > 0);
  const bad = d.thresholds.filter((t) => !t.ok).length;
  return `drift over ${d.windows} window(s) of ${Math.round(d.windowMs / 1000)} s: ${sig.length ? `upward trend in ${sig.map((s) => s.key).join(', ')}` : 'no significant upward trend'}${d.thresholds.length ? `; ${bad} of ${d.thresholds.length} drift threshold(s) breached` : ''}`;
}

const slope = (s: DriftSeries) => (s.pctPerHour === null ? (s.slopePerHour > 0 ? 'from 0' : '0') : `${s.pctPerHour >= 0 ? '+' : ''}${s.pctPerHour.toFixed(1)}%/h`);

export function driftLines(d: Drift): string[] {
  const out = [driftHeadline(d), `test: ${d.test}`];
  for (const t of d.thresholds) out.push(`${t.ok ? 'ok      ' : 'DRIFTING'} ${t.expr}: ${t.note}`);
  const shown = d.series.filter((s) => s.key.endsWith('.p99') || s.key.endsWith('.rate'));
  if (shown.length) {
    out.push('');
    const rows = [['SERIES', 'FIRST', 'LAST', 'SEN SLOPE', 'MK p(up)'], ...shown.map((s) => [s.key + (s.significant ? ' *' : ''), num(s.points[0]?.[1] ?? null, s.unit), num(s.points[s.points.length - 1]?.[1] ?? null, s.unit), slope(s), s.mk.pUp.toPrecision(2)])];
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    for (const r of rows) out.push(r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  '));
    out.push('(* significant upward trend)');
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// HTML

interface Line {
  label: string;
  cls: string;
  points: [number, number][];
}

/** A small line plot: x and y scaled to the data, optional log x. */
function svgPlot(lines: Line[], opts: { id: string; label: string; xLabel: string; yLabel: string; logX?: boolean; steps?: boolean; maxY?: number }): string {
  const w = 480;
  const hgt = 180;
  const pad = { l: 46, r: 8, t: 18, b: 26 };
  const all = lines.flatMap((l) => l.points).filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y));
  if (all.length === 0) return '';
  const fx = (x: number) => (opts.logX ? Math.log10(Math.max(x, 1e-3)) : x);
  const xs = all.map(([x]) => fx(x));
  const ys = all.map(([, y]) => y);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs) === x0 ? x0 + 1 : Math.max(...xs);
  const y0 = Math.min(0, ...ys);
  const top = Math.min(Math.max(...ys), opts.maxY ?? Infinity);
  const y1 = top <= y0 ? y0 + 1 : top;
  const px = (x: number) => pad.l + ((fx(x) - x0) / (x1 - x0)) * (w - pad.l - pad.r);
  // Values above maxY (a stalled window) are drawn at the top edge, so they do not flatten the rest.
  const py = (y: number) => hgt - pad.b - ((Math.min(y, y1) - y0) / (y1 - y0)) * (hgt - pad.t - pad.b);
  const paths = lines
    .filter((l) => l.points.length)
    .map((l) => {
      const pts: string[] = [];
      l.points.forEach(([x, y], i) => {
        if (opts.steps && i > 0) pts.push(`${px(x).toFixed(1)},${py(l.points[i - 1][1]).toFixed(1)}`);
        pts.push(`${px(x).toFixed(1)},${py(y).toFixed(1)}`);
      });
      return `<polyline class="${l.cls}" fill="none" points="${pts.join(' ')}"><title>${h(l.label)}</title></polyline>`;
    });
  const xTick = (v: number) => (opts.logX ? 10 ** v : v);
  const fmtX = (v: number) => (v >= 100 ? v.toFixed(0) : v >= 1 ? v.toFixed(1) : v.toPrecision(2));
  let lx = pad.l + 6;
  const legend = lines
    .map((l) => {
      const t = `<text x="${lx}" y="12" class="cmp-legend ${l.cls}-text">■ ${h(l.label)}</text>`;
      lx += 16 + l.label.length * 6.2;
      return t;
    })
    .join('');
  return (
    `<svg class="cmp-plot" id="${h(opts.id)}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${hgt}" width="${w}" height="${hgt}" role="img" aria-label="${h(opts.label)}">` +
    `<line x1="${pad.l}" x2="${w - pad.r}" y1="${hgt - pad.b}" y2="${hgt - pad.b}" class="cmp-axis"/><line x1="${pad.l}" x2="${pad.l}" y1="${pad.t}" y2="${hgt - pad.b}" class="cmp-axis"/>` +
    paths.join('') +
    legend +
    `<text x="${pad.l}" y="${hgt - 8}" class="cmp-tick">${h(fmtX(xTick(x0)))}</text><text x="${w - pad.r}" y="${hgt - 8}" class="cmp-tick" text-anchor="end">${h(fmtX(xTick(x1)))} ${h(opts.xLabel)}</text>` +
    `<text x="${pad.l - 4}" y="${hgt - pad.b}" class="cmp-tick" text-anchor="end">${h(String(Number(y0.toPrecision(3))))}</text><text x="${pad.l + 3}" y="${pad.t + 8}" class="cmp-tick">${h(`${Number(y1.toPrecision(3))} ${opts.yLabel}`)}</text>` +
    `</svg>`
  );
}

function cdfSvg(p: DistributionPlot): string {
  return svgPlot(
    [
      { label: 'baseline', cls: 'cmp-base', points: p.base },
      { label: 'this run', cls: 'cmp-new', points: p.next },
    ],
    { id: p.id, label: p.title, xLabel: 'ms (log)', yLabel: 'share', logX: true, steps: true },
  );
}

const STYLE = `<style>
.cmp-plot{background:#fff;border:1px solid #ddd;margin:4px 8px 8px 0}.cmp-axis{stroke:#999;stroke-width:1}
.cmp-base{stroke:#1f77b4;stroke-width:1.6}.cmp-new{stroke:#d62728;stroke-width:1.6}.cmp-trend{stroke:#ff7f0e;stroke-width:1.2;stroke-dasharray:4 3}
.cmp-legend,.cmp-tick{font:11px sans-serif;fill:#333}.cmp-base-text{fill:#1f77b4}.cmp-new-text{fill:#d62728}.cmp-trend-text{fill:#ff7f0e}
.cmp-plots{display:flex;flex-wrap:wrap}.cmp-plots figure{margin:0}.cmp-plots figcaption{font-size:12px;color:#555}
tr.regressed td{background:#fdecea}
</style>`;

export function comparisonSection(s: Summary): string {
  const c = comparisonOf(s);
  if (!c) return '';
  const regs = c.regressions
    .map((r) => `<tr class="${r.ok ? 'ok' : 'regressed'}" data-regression="${h(r.expr)}" data-ok="${r.ok}"><td><span class="badge ${r.ok ? 'ok' : 'breached'}">${r.ok ? 'ok' : 'regressed'}</span></td><td><code>${h(r.expr)}</code></td><td class="num">${h(num(r.base, r.metric.includes('rate') || r.metric === 'http_req_failed' || r.metric === 'rate_limited' ? 'share' : 'ms'))}</td><td class="num">${h(num(r.value, r.metric === 'http_req_failed' || r.metric === 'rate_limited' ? 'share' : 'ms'))}</td><td class="num">${h(ratio(r.ratio))}</td><td class="num">${h(conf(r.confidence))}</td><td>${h(r.note)}</td></tr>`)
    .join('\n');
  const rows = c.rows
    .map((r) => `<tr><td>${h(r.label)}</td><td class="num">${h(num(r.base, r.unit))}</td><td class="num">${h(num(r.value, r.unit))}</td><td class="num">${h(ratio(r.ratio))}</td><td class="num">${h(conf(r.confidence))}</td><td class="num">${r.nBase} / ${r.nNew}</td></tr>`)
    .join('\n');
  const plots = c.plots.map((p) => `<figure>${cdfSvg(p)}<figcaption>${h(p.title)}</figcaption></figure>`).join('');
  return `<section>${STYLE}<h2 id="comparison">Comparison with the baseline</h2>
<p id="comparison-headline">${h(comparisonHeadline(c))}. Baseline saved ${h(c.baseline.savedAt)}, scenarios ${h(c.baseline.scenarios.join(', ') || 'none')}, target ${h(c.baseline.target)}.</p>
<p class="muted">Test: ${h(c.test)}.</p>
<table class="data" id="regressions-table"><thead><tr><th>Status</th><th>Regression threshold</th><th class="num">Baseline</th><th class="num">This run</th><th class="num">Ratio</th><th class="num">P(worse)</th><th>Why</th></tr></thead><tbody>
${regs}
</tbody></table>
<h3>Side by side</h3>
<table class="data" id="comparison-table"><thead><tr><th></th><th class="num">Baseline</th><th class="num">This run</th><th class="num">Ratio</th><th class="num">P(worse)</th><th class="num">Samples</th></tr></thead><tbody>
${rows}
</tbody></table>
<h3>Distributions</h3><div class="cmp-plots" id="comparison-plots">${plots}</div></section>`;
}

export function driftSection(s: Summary): string {
  const d = driftOf(s);
  if (!d) return '';
  const ths = d.thresholds
    .map((t) => `<tr class="${t.ok ? 'ok' : 'regressed'}" data-drift="${h(t.expr)}" data-ok="${t.ok}"><td><span class="badge ${t.ok ? 'ok' : 'breached'}">${t.ok ? 'ok' : 'drifting'}</span></td><td><code>${h(t.expr)}</code></td><td class="num">${t.value === null ? '–' : h(`${t.value.toFixed(1)}${t.unit}`)}</td><td class="num">${t.pUp === null ? '–' : h(t.pUp.toPrecision(2))}</td><td>${h(t.note)}</td></tr>`)
    .join('\n');
  const shown = d.series.filter((x) => x.key.endsWith('.p99') || x.key.endsWith('.rate'));
  const rows = shown
    .map((x) => `<tr data-series="${h(x.key)}" data-significant="${x.significant}"><td><code>${h(x.key)}</code></td><td class="num">${x.points.length}</td><td class="num">${h(num(x.points[0]?.[1] ?? null, x.unit))}</td><td class="num">${h(num(x.points[x.points.length - 1]?.[1] ?? null, x.unit))}</td><td class="num">${h(slope(x))}</td><td class="num">${h(x.mk.pUp.toPrecision(2))}</td><td>${x.significant ? 'upward trend' : ''}</td></tr>`)
    .join('\n');
  // Plotted first: the series a drift threshold names, then those with an upward trend, then each op's p99.
  const named = new Set(d.thresholds.map((t) => t.key));
  const rank = (x: DriftSeries) => (named.has(x.key) ? 0 : x.significant ? 1 : x.key.endsWith('.p99') ? 2 : 3);
  const plots = [...d.series]
    .filter((x) => x.unit === 'ms' && x.points.length >= 2)
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, 8)
    .map((x) => {
      const t0 = x.points[0][0];
      const t1 = x.points[x.points.length - 1][0];
      const ys = x.points.map((p) => p[1]).sort((a, b) => a - b);
      const med = ys[ys.length >> 1];
      const tm = (t0 + t1) / 2;
      const perMs = x.slopePerHour / 3_600_000;
      const pts = x.points.map(([t, v]) => [t / 1000, v] as [number, number]);
      const trend: [number, number][] = [
        [t0 / 1000, med + perMs * (t0 - tm)],
        [t1 / 1000, med + perMs * (t1 - tm)],
      ];
      return `<figure>${svgPlot(
        [
          { label: 'per window', cls: 'cmp-new', points: pts },
          { label: `Sen slope ${slope(x)}`, cls: 'cmp-trend', points: trend },
        ],
        { id: `drift-${x.key.replace(/[^a-z0-9]+/gi, '-')}`, label: `${x.key} per window`, xLabel: 's', yLabel: 'ms', maxY: Math.max(...ys.slice(0, Math.ceil(ys.length * 0.9))) * 1.5 },
      )}<figcaption>${h(x.key)} per ${Math.round(d.windowMs / 1000)} s window${x.significant ? ' — upward trend' : ''}</figcaption></figure>`;
    })
    .join('');
  return `<section>${STYLE}<h2 id="drift">Drift over the run</h2>
<p id="drift-headline">${h(driftHeadline(d))}.</p><p class="muted">Test: ${h(d.test)}.</p>
${ths ? `<table class="data" id="drift-thresholds"><thead><tr><th>Status</th><th>Drift threshold</th><th class="num">Drift</th><th class="num">MK p(up)</th><th>Why</th></tr></thead><tbody>\n${ths}\n</tbody></table>` : ''}
<table class="data" id="drift-table"><thead><tr><th>Series</th><th class="num">Windows</th><th class="num">First</th><th class="num">Last</th><th class="num">Sen slope</th><th class="num">MK p(up)</th><th></th></tr></thead><tbody>
${rows}
</tbody></table>
<div class="cmp-plots" id="drift-plots">${plots}</div></section>`;
}
