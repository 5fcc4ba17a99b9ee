/**
 * A worker thread's code as one CommonJS script: the copy the build inlined into the compiled
 * CLI (scripts/build.mjs, the same esbuild options as below), or, when the sources run, the entry
 * and what it imports bundled here once per process, so the thread needs no TypeScript loader
 * (a loader costs a thread and an isolate of its own). The history writer's, the merge's and the
 * judge's workers all start from it.
 */
import { buildSync } from 'esbuild';

const bundled = new Map<string, string>();

/** `inlined`: the build's copy (undefined from the sources); `entry`: the worker's file; `alias`: esbuild's. */
export function workerScript(inlined: string | undefined, entry: string, alias?: Record<string, string>): string {
  if (typeof inlined === 'string') return inlined;
  let text = bundled.get(entry);
  if (text === undefined) {
    const out = buildSync({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', target: 'node20', write: false, logLevel: 'silent', ...(alias ? { alias } : {}) });
    bundled.set(entry, (text = out.outputFiles[0].text));
  }
  return text;
}
