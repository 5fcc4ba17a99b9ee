/** report.html: one self-contained file (uPlot, styles and data inlined; works offline). */
import type { Summary } from '../../spec/summary.ts';
import { escapeHtml, inlineSafe, jsonForScript } from '../escape.ts';
import { readMetrics } from '../metrics.ts';
import { redactSummary } from '../redact.ts';
import { loadAssets } from './assets.ts';
import { buildCharts, pointCount } from './chart-data.ts';
import { comparisonSection, driftSection } from '../comparison.ts';
import { chartsSection, faultsSection, findingsSection, headerSection, invariantsSection, latencySection, loadSection, runSection, thresholdsSection } from './sections.ts';

export function renderHtml(input: Summary): string {
  const s = redactSummary(input);
  const m = readMetrics(s.metrics);
  const charts = buildCharts(s, m);
  const a = loadAssets();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<title>paystorm ${escapeHtml(s.verdict.toUpperCase())} · ${escapeHtml(s.runId)}</title>
<style>${inlineSafe(a.uplotCss, 'style')}</style>
<style>${inlineSafe(a.pageCss, 'style')}</style>
</head>
<body data-charts-expected="${charts.filter((c) => c.x.length > 0 && pointCount(c) > 0).length}" data-verdict="${s.verdict}">
${headerSection(s, m)}
<main>
${findingsSection(s)}
${loadSection(s)}
${invariantsSection(s)}
${thresholdsSection(s)}
${comparisonSection(s)}
${driftSection(s)}
${chartsSection(charts, s.faults.length)}
${latencySection(m)}
${faultsSection(s)}
${runSection(s)}
</main>
<script type="application/json" id="paystorm-data">${jsonForScript({ version: s.version, runId: s.runId, charts })}</script>
<script>${inlineSafe(a.uplotJs, 'script')}</script>
<script>${inlineSafe(a.pageJs, 'script')}</script>
</body>
</html>
`;
}
