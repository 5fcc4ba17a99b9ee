/**
 * Step 6 of `paystorm run`: the reports in the run folder (copied to <out>/latest), the baseline
 * when --save-baseline asks, and the console verdict.
 */
import { join } from 'node:path';
import type { Summary } from '../../spec/index.ts';
import { writeReports, renderConsole } from '../../report/index.ts';
import { saveBaseline } from '../../oracle/baseline.ts';
import type { RunSettings } from './settings.ts';
import type { RunIo } from './scope.ts';

export interface RunResult {
  exitCode: number;
  summary: Summary | null;
  runDir: string | null;
}

export async function reportRun(summary: Summary, s: Pick<RunSettings, 'runDir' | 'outDir' | 'cfg'>, io: RunIo): Promise<RunResult> {
  await writeReports(s.runDir, summary);
  if (s.cfg.saveBaseline !== undefined) {
    const saved = saveBaseline(s.cfg.saveBaseline, summary);
    io.stderr.write(`paystorm: baseline saved: ${saved.path} (${saved.bytes} bytes)\n`);
  }
  io.stdout.write(renderConsole(summary, { color: !!io.stdout.isTTY }) + '\n');
  io.stdout.write(`reports: ${s.runDir} (copied to ${join(s.outDir, 'latest')})\n`);
  return { exitCode: summary.exitCode, summary, runDir: s.runDir };
}
