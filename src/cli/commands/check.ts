/** `paystorm check <run-dir | history file>`: re-runs the oracle over a saved history. */
import { dirname } from 'node:path';
import type { PaystormCommand } from './types.ts';
import { historyFileOf, judgeHistory } from '../judge-run.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { scenarioByName } from '../../../scenarios/index.ts';
import { k6HistoryOf } from '../../history/k6-history.ts';

export const checkCommand: PaystormCommand = {
  command: 'check <path>',
  describe: 'Judge a saved run again (a run directory or its history file); rewrites its reports',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: "reports/<run-id>, a history file (history.bin.gz, .ndjson), or k6's --out json output of a paystorm k6 script (.json or .gz)" })
      .option('threshold', { type: 'string', array: true, describe: 'Threshold in k6 syntax, repeatable' })
      .option('baseline', { type: 'string', describe: 'Compare with a baseline (a --save-baseline directory, a baseline.json or a run directory); regression thresholds as in paystorm run (docs/baselines.md)' })
      .option('trend-window', { type: 'string', describe: 'Window of the drift figures and trend() thresholds (default 60s)' })
      .option('write', { type: 'boolean', default: true, describe: 'Rewrite the reports beside the history (--no-write to only print)' })
      .example('$0 check reports/latest', 'Judge the latest run again')
      .example('$0 check run.k6.json.gz', 'Judge a k6 run (k6 run --out json=run.k6.json.gz dist/k6/mixed.js); reports go to run.k6.paystorm/'),
  handler: async (args) => {
    // k6 output is recognised by its content and converted to a history first (src/history/k6.ts).
    const k6 = await k6HistoryOf(args.path, { write: args.write, onWarning: (m) => process.stderr.write(`paystorm: ${m}\n`) });
    const history = k6 ? k6.historyPath : historyFileOf(args.path);
    let summary;
    try {
      const { loadBaseline } = await import('../../oracle/baseline.ts');
      const { parseDuration } = await import('../duration.ts');
      summary = await judgeHistory(history, {
        thresholds: args.threshold ?? [],
        scenarioThresholds: (n) => scenarioByName(n)?.thresholds ?? [],
        ...(args.baseline !== undefined ? { baseline: { baseline: loadBaseline(args.baseline), source: args.baseline } } : {}),
        ...(args.trendWindow !== undefined ? { trendWindowMs: parseDuration(args.trendWindow, '--trend-window') } : {}),
      });
    } finally {
      k6?.cleanup();
    }
    // latestDir = the run dir itself: re-judging an old run must not replace reports/latest.
    if (args.write) await writeReports(dirname(history), summary, { latestDir: dirname(history) });
    process.stdout.write(renderConsole(summary, { color: !!process.stdout.isTTY }) + '\n');
    return summary.exitCode;
  },
};
