/** `paystorm compare BASE NEW`: compares two saved runs or baselines with regression thresholds (docs/baselines.md). */
import { writeFileSync } from 'node:fs';
import type { PaystormCommand } from './types.ts';
import { EXIT, PaystormError } from '../../spec/index.ts';

export const compareCommand: PaystormCommand = {
  command: 'compare <base> <new>',
  describe: 'Compare a run with a baseline (each a --save-baseline directory, a baseline.json or a run directory); exit 2 on a regression',
  builder: (y) =>
    y
      .positional('base', { type: 'string', describe: 'The baseline: a --save-baseline directory, a baseline.json, or reports/<run-id>' })
      .positional('new', { type: 'string', describe: 'The run to judge against it (same forms)' })
      .option('threshold', { type: 'string', array: true, describe: 'Regression threshold, e.g. "http_req_duration{op:create}: p(99) < baseline * 1.2", repeatable (default: every op\'s p50 < baseline * 1.5 + 5, error rate < baseline + 0.01, settle time p50 < baseline * 1.5 + 5)' })
      .option('json', { type: 'string', describe: 'Also write the comparison as JSON to this file' })
      .example('$0 compare baselines/main reports/latest', 'Gate the latest run on main\'s baseline')
      .example('$0 compare baselines/main reports/latest --threshold "http_req_duration{op:create}: p(99) < baseline * 1.2"', 'With your own regression threshold'),
  handler: async (args) => {
    const { loadBaseline, compareBaselines, defaultRegressions, isRegressionExpr, parseRegression } = await import('../../oracle/baseline.ts');
    const { comparisonLines } = await import('../../report/comparison.ts');
    const exprs: string[] = (args.threshold ?? []) as string[];
    for (const e of exprs) {
      if (!isRegressionExpr(e)) throw new PaystormError(`--threshold: "${e}" does not compare with baseline. Write it as "metric{tag:value}: aggregate < baseline * FACTOR", e.g. "http_req_duration{op:create}: p(99) < baseline * 1.2".`, EXIT.usage, '--threshold');
      try {
        parseRegression(e);
      } catch (err) {
        throw new PaystormError(`--threshold: ${(err as Error).message}`, EXIT.usage, '--threshold');
      }
    }
    const base = loadBaseline(args.base as string, 'base');
    const next = loadBaseline(args.new as string, 'new');
    const c = compareBaselines(base, args.base as string, next, exprs.length ? exprs : defaultRegressions(base));
    process.stdout.write(comparisonLines(c).join('\n') + '\n');
    if (args.json) writeFileSync(args.json as string, JSON.stringify(c, null, 2) + '\n');
    return c.regressions.some((r) => !r.ok) ? EXIT.threshold : EXIT.pass;
  },
};
