/**
 * The rate-limit probe's result (summary.rateBoundary) as text lines with a small text plot of
 * the burst (console, summary.md, junit) and as an inline SVG bar plot (report.html).
 */
import type { RateBoundary } from '../spec/summary.ts';
import { escapeHtml } from './escape.ts';

const BARS = ' ▁▂▃▄▅▆▇█';

function spark(values: number[], max: number): string {
  return values.map((v) => (v <= 0 ? ' ' : BARS[Math.max(1, Math.round((v / Math.max(1, max)) * 8))])).join('');
}

/** Index of the bin holding the boundary. */
function boundaryBin(b: RateBoundary): number {
  if (!b.burst || b.bins.length === 0) return -1;
  return Math.max(0, Math.min(b.bins.length - 1, Math.floor((b.burst.boundary - b.bins[0].t) / Math.max(1, b.binMs))));
}

export function rateBoundaryLines(b: RateBoundary): string[] {
  const out = [`${b.text}`, `why this limit: ${b.why}`];
  if (b.burst && b.bins.length) {
    const max = Math.max(...b.bins.map((x) => Math.max(x.admitted, x.refused)));
    const at = boundaryBin(b);
    const t0 = (b.bins[0].t / 1000).toFixed(2);
    const t1 = ((b.bins[b.bins.length - 1].t + b.binMs) / 1000).toFixed(2);
    out.push(`burst, ${b.binMs} ms per column, ${t0}-${t1} s (run clock), boundary at ${(b.burst.boundary / 1000).toFixed(2)} s:`);
    out.push(`  admitted |${spark(b.bins.map((x) => x.admitted), max)}|`);
    out.push(`  refused  |${spark(b.bins.map((x) => x.refused), max)}|`);
    out.push(`  boundary  ${' '.repeat(at)}^`);
  }
  return out;
}

/** A small bar plot: admitted (green, up) and refused (red, down) per bin, the boundary dashed. */
export function rateBoundarySvg(b: RateBoundary): string {
  if (!b.burst || b.bins.length === 0) return '';
  const w = 480;
  const h = 140;
  const mid = 70;
  const pad = 4;
  const bw = (w - 2 * pad) / b.bins.length;
  const max = Math.max(1, ...b.bins.map((x) => Math.max(x.admitted, x.refused)));
  const scale = (mid - 14) / max;
  const bars: string[] = [];
  b.bins.forEach((x, i) => {
    const left = (pad + i * bw).toFixed(1);
    const width = Math.max(1, bw - 1).toFixed(1);
    if (x.admitted) bars.push(`<rect class="rb-ok" x="${left}" y="${(mid - x.admitted * scale).toFixed(1)}" width="${width}" height="${(x.admitted * scale).toFixed(1)}"><title>${x.admitted} admitted at ${(x.t / 1000).toFixed(3)} s</title></rect>`);
    if (x.refused) bars.push(`<rect class="rb-429" x="${left}" y="${mid}" width="${width}" height="${(x.refused * scale).toFixed(1)}"><title>${x.refused} refused (429) at ${(x.t / 1000).toFixed(3)} s</title></rect>`);
  });
  const bx = (pad + ((b.burst.boundary - b.bins[0].t) / b.binMs) * bw).toFixed(1);
  return (
    `<svg class="rate-boundary-plot" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}" role="img" aria-label="${escapeHtml(`burst across the window boundary: ${b.burst.before} + ${b.burst.after} admitted`)}">` +
    `<line x1="0" x2="${w}" y1="${mid}" y2="${mid}" class="rb-axis"/>` +
    bars.join('') +
    `<line x1="${bx}" x2="${bx}" y1="0" y2="${h}" class="rb-boundary"/>` +
    `<text x="${Number(bx) + 3}" y="11" class="rb-label">boundary ${(b.burst.boundary / 1000).toFixed(2)} s</text>` +
    `<text x="${pad}" y="11" class="rb-label">admitted ${b.burst.before} before</text>` +
    `<text x="${w - pad}" y="11" class="rb-label" text-anchor="end">${b.burst.after} after</text>` +
    `<text x="${pad}" y="${h - 3}" class="rb-label">429 below the line; ${b.binMs} ms per bar</text>` +
    `</svg>`
  );
}
