/** Reports of a run: summary.json, junit.xml, summary.md, report.html and the console summary. */
export { writeReports, writeSnapshot, REPORT_FILES, SNAPSHOT_FILES, type WriteReportsOptions } from './write.ts';
export { renderJUnit } from './junit.ts';
export { renderMarkdown } from './markdown.ts';
export { renderHtml } from './html/render.ts';
export { renderConsole } from './console.ts';
export { redactSecrets, redactSummary } from './redact.ts';
