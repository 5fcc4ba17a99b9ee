/**
 * The files report.html inlines: uPlot's script and stylesheet from node_modules, and
 * our page script and styles next to this module (inlined into the compiled CLI by the build).
 * Read once per process, at render time, so the report never refers to anything on the network
 * or the disk.
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

/** page.js and styles.css as the build inlined them into the compiled CLI (scripts/build.mjs); undefined when the sources run. */
declare const PAYSTORM_REPORT_PAGE_JS: string | undefined;
declare const PAYSTORM_REPORT_STYLES_CSS: string | undefined;

export function loadAssets(): Assets {
  if (cached) return cached;
  const read = (p: string) => readFileSync(p, 'utf8');
  cached = {
    uplotJs: read(require.resolve('uplot/dist/uPlot.iife.min.js')),
    uplotCss: read(require.resolve('uplot/dist/uPlot.min.css')),
    pageJs: typeof PAYSTORM_REPORT_PAGE_JS === 'string' ? PAYSTORM_REPORT_PAGE_JS : read(fileURLToPath(new URL('./page.js', import.meta.url))),
    pageCss: typeof PAYSTORM_REPORT_STYLES_CSS === 'string' ? PAYSTORM_REPORT_STYLES_CSS : read(fileURLToPath(new URL('./styles.css', import.meta.url))),
  };
  return cached;
}
