/** `paystorm check <run-dir | history file | k6 output>`: re-runs the oracle over a saved history, or judges a k6 run. */
import { dirname } from 'node:path';
import type { PaystormCommand } from './types.ts';
import { historyFileOf, judgeHistoryFile, judgeK6Output } from '../judge-run.ts';
import { judgeMemoryMbOf } from '../live/judge-memory.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { scenarioByName } from '../../../scenarios/index.ts';
import { makeDirsSync } from '../../history/dirs.ts';

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
      .option('judge-memory', { type: 'number', describe: "The judge's memory limit in MB (default three quarters of the machine's): a long soak's history needs about 60 bytes a record (most of it one key's rate-limit rows, read back at the end)" })
      .option('save-history', { type: 'boolean', default: false, describe: 'k6 output: also write the converted history (history.bin.gz) beside the reports; it is written anyway when the run has violations (their repro scripts are made from it)' })
      .example('$0 check reports/latest', 'Judge the latest run again')
      .example('$0 check run.k6.json.gz', 'Judge a k6 run (k6 run --out json=run.k6.json.gz dist/k6/mixed.js); reports go to run.k6.paystorm/'),
  handler: async (args) => {
    const { loadBaseline } = await import('../../oracle/baseline.ts');
    const { parseDuration } = await import('../duration.ts');
    const memoryMb = judgeMemoryMbOf(args.judgeMemory);
    const judging = {
      thresholds: args.threshold ?? [],
      scenarioThresholds: (n: string) => scenarioByName(n)?.thresholds ?? [],
      ...(args.baseline !== undefined ? { baseline: { baseline: loadBaseline(args.baseline), source: args.baseline } } : {}),
      ...(args.trendWindow !== undefined ? { trendWindowMs: parseDuration(args.trendWindow, '--trend-window') } : {}),
    };
    // k6 output is recognised by its content and judged as it is read (judgeK6Output).
    const k6Judged = await judgeK6Output(args.path, judging, { write: args.write, memoryMb });
    let summary;
    let runDir: string;
    if (k6Judged) {
      const { k6 } = k6Judged;
      summary = k6Judged.summary;
      runDir = k6.reportDir ?? '';
      // The repro scripts of violations are made from the converted history: written then, or when asked.
      const violated = summary.invariants.some((i) => i.violations > 0);
      if (args.write && (args.saveHistory || violated)) await k6.saveHistory();
      else if (args.write) k6.dropHistory();
    } else {
      const history = historyFileOf(args.path);
      summary = await judgeHistoryFile(history, { ...judging, memoryMb });
      runDir = dirname(history);
    }
    // latestDir = the run dir itself: re-judging an old run must not replace reports/latest.
    if (args.write) {
      makeDirsSync(runDir);
      await writeReports(runDir, summary, { latestDir: runDir });
    }
    process.stdout.write(renderConsole(summary, { color: !!process.stdout.isTTY }) + '\n');
    return summary.exitCode;
  },
};
