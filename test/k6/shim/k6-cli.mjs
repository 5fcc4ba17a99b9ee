#!/usr/bin/env node
/**
 * A stand-in for the k6 binary (`k6 run`), for running the K6_BIN tests' plumbing without k6:
 *
 *   K6_BIN=test/k6/shim/k6-cli.mjs npx vitest run test/k6/records.test.ts
 *
 * Accepts `k6 run [-q] [-e NAME=VALUE]... [--out json=FILE[.gz]] [-i N] [-u N] [-d DURATION]
 * [--execution-segment S] [--execution-segment-sequence Q] bundle.js` and runs the bundle under
 * runner.mjs in this process, which behaves as k6 v1.3 does (see its header): the script's own
 * plan on the wall clock, SIGINT handled as k6 handles it (exit 105 after teardown and
 * handleSummary), k6's exit codes. __ENV holds the process environment and the -e values, as
 * `k6 run` passes them (--include-system-env-vars is on by default for run).
 * It is the stand-in, not k6: it proves nothing about k6 itself.
 */
import { runTest } from './runner.mjs';

const argv = process.argv.slice(2);
if (argv[0] !== 'run') {
  console.error('k6-cli stand-in: only `run` is supported');
  process.exit(2);
}
const env = { ...process.env };
const cfg = { env };
let bundle = null;
for (let i = 1; i < argv.length; i++) {
  const a = argv[i];
  const value = () => {
    if (i + 1 >= argv.length) throw new Error(`k6-cli stand-in: ${a} needs a value`);
    return argv[++i];
  };
  if (a === '-q' || a === '--quiet') continue;
  if (a === '-e' || a === '--env') {
    const [k, ...v] = value().split('=');
    env[k] = v.join('=');
  } else if (a === '--out' || a === '-o') {
    const v = value();
    if (!v.startsWith('json=')) throw new Error(`k6-cli stand-in: only --out json=FILE, got ${v}`);
    cfg.jsonOut = v.slice('json='.length);
  } else if (a === '-i' || a === '--iterations') cfg.iterations = Number(value());
  else if (a === '-u' || a === '--vus') cfg.vus = Number(value());
  else if (a === '-d' || a === '--duration') cfg.duration = value();
  else if (a === '--execution-segment') cfg.executionSegment = value();
  else if (a === '--execution-segment-sequence') cfg.executionSegmentSequence = value();
  else if (a.startsWith('-')) throw new Error(`k6-cli stand-in: unsupported flag ${a}`);
  else bundle = a;
}
if (!bundle) {
  console.error('k6-cli stand-in: no script given');
  process.exit(2);
}
const code = await runTest({ ...cfg, bundle });
process.exit(code);
