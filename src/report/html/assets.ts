/**
 * The files report.html inlines: uPlot's script and stylesheet from node_modules, and
 * our page script and styles next to this module. Read once per process, at render time,
 * so the report never refers to anything on the network or the disk.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

export interface Assets {
  uplotJs: string;
  uplotCss: string;
  pageJs: string;
  pageCss: string;
}

let cached: Assets | null = null;

export function loadAssets(): Assets {
  if (cached) return cached;
  const read = (p: string) => readFileSync(p, 'utf8');
  cached = {
    uplotJs: read(require.resolve('uplot/dist/uPlot.iife.min.js')),
    uplotCss: read(require.resolve('uplot/dist/uPlot.min.css')),
    pageJs: read(fileURLToPath(new URL('./page.js', import.meta.url))),
    pageCss: read(fileURLToPath(new URL('./styles.css', import.meta.url))),
  };
  return cached;
}
