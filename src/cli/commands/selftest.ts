/** `paystorm selftest`: every seeded bug of the reference service must be caught by an invariant citing its rule. */
import { availableParallelism } from 'node:os';
import type { PaystormCommand } from './types.ts';
import { EXIT, PaystormError } from '../../spec/index.ts';
import { parseDuration } from '../duration.ts';
import { renderTable, runSelftest, type PresentationChoice } from '../selftest.ts';
import { renderVariantTable, runVariantMatrix } from '../variant-matrix.ts';

export const selftestCommand: PaystormCommand = {
  command: 'selftest',
  describe: 'Run the suite against the reference service once per seeded bug; check each is caught by an invariant citing its rule and the clean service passes',
  builder: (y) =>
    y
      .option('bugs', { type: 'string', describe: 'Bugs to run, comma-separated (default: all; see src/target/bugs.ts)' })
      .option('sample', { type: 'number', describe: 'Run N bugs picked from the seed, spread across rule families' })
      .option('seed', { type: 'number', describe: 'Seed of the sample and of every run (default: random, printed)' })
      .option('presentation', { type: 'string', choices: ['A', 'B', 'both'], default: 'both', describe: 'Presentation(s) of the clean runs; bug runs use B (A where only A declares the rule) unless A or B is given' })
      .option('out', { type: 'string', describe: 'Reports directory (default reports/selftest-<timestamp>; one folder per bug)' })
      .option('matrix', { type: 'string', describe: 'Write the detection matrix here (default docs/detection-matrix.md when every bug runs; with --bugs/--sample only when given)' })
      .option('jobs', { type: 'number', default: 1, describe: 'Runs at once (each embedded stack listens on port 0)' })
      .option('run-cap', { type: 'string', default: '5m', describe: 'Hard cap on each run (a bug that strands payments can stretch a settle phase); a capped run is judged on what it measured' })
      .option('full-suite', { type: 'boolean', default: false, describe: 'Run the full default suite for every bug instead of the scenarios declaring its rule' })
      .option('variants', { type: 'string', describe: 'Instead of bugs: run the default suite on conforming variants of the service (each open choice of the spec taken another way; all when no names are given, else comma-separated) and require zero failed invariants; with --sample N, N variants from the seed' })
      .example('$0 selftest --jobs 2', 'All bugs, both clean presentations; writes docs/detection-matrix.md')
      .example('$0 selftest --sample 5 --seed 7', 'Five bugs from different rule families (CI)')
      .example('$0 selftest --bugs rl-off-by-one,ref-no-lock --presentation B', 'Two bugs and one clean run')
      .example('$0 selftest --variants --jobs 2', 'Every conforming variant must pass the default suite; writes docs/variant-matrix.md'),
  handler: async (args) => {
    const bugs = typeof args.bugs === 'string' ? args.bugs.split(',').map((s: string) => s.trim()).filter(Boolean) : undefined;
    if (args.bugs !== undefined && !bugs?.length) throw new PaystormError('--bugs: name at least one bug (comma-separated).', EXIT.usage, '--bugs');
    if (args.jobs > availableParallelism()) process.stderr.write(`paystorm: --jobs ${args.jobs} is more than the ${availableParallelism()} CPUs here; timing-sensitive checks may suffer.\n`);
    let runCapMs: number;
    try {
      runCapMs = parseDuration(String(args.runCap), '--run-cap');
    } catch (e) {
      throw new PaystormError((e as Error).message, EXIT.usage, '--run-cap');
    }
    const controller = new AbortController();
    let signals = 0;
    const onSignal = (sig: NodeJS.Signals) => {
      signals++;
      if (signals === 1) {
        process.stderr.write(`\npaystorm: ${sig}: stopping after the runs in progress (again to quit at once)\n`);
        controller.abort(sig);
      } else process.exit(EXIT.interrupted);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    try {
      if (args.variants !== undefined) {
        if (bugs || args.fullSuite) throw new PaystormError('--variants runs conforming variants, not bugs: drop --bugs/--full-suite, or run them separately.', EXIT.usage, '--variants');
        const names = String(args.variants).split(',').map((s) => s.trim()).filter(Boolean);
        const report = await runVariantMatrix({
          ...(names.length ? { variants: names } : {}),
          ...(args.sample !== undefined ? { sample: args.sample } : {}),
          ...(args.seed !== undefined ? { seed: args.seed } : {}),
          presentation: args.presentation as PresentationChoice,
          ...(args.out !== undefined ? { out: args.out } : {}),
          ...(args.matrix !== undefined ? { matrix: args.matrix } : {}),
          jobs: args.jobs,
          runCapMs,
          signal: controller.signal,
          log: (line) => process.stderr.write(line + '\n'),
        });
        process.stdout.write(renderVariantTable(report));
        return report.exitCode;
      }
      const report = await runSelftest({
        ...(bugs ? { bugs } : {}),
        ...(args.sample !== undefined ? { sample: args.sample } : {}),
        ...(args.seed !== undefined ? { seed: args.seed } : {}),
        presentation: args.presentation as PresentationChoice,
        ...(args.out !== undefined ? { out: args.out } : {}),
        ...(args.matrix !== undefined ? { matrix: args.matrix } : {}),
        jobs: args.jobs,
        fullSuite: args.fullSuite,
        runCapMs,
        signal: controller.signal,
        log: (line) => process.stderr.write(line + '\n'),
      });
      process.stdout.write(renderTable(report));
      return report.exitCode;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  },
};
