/**
 * Every paystorm command, by name. A command's module (its flags and handler, and through
 * them the whole pipeline) loads only when that command runs: `paystorm --help` lists
 * the names and descriptions here without loading any (start time; see docs/build.md).
 * test/cli/commands.test.ts checks each entry against its module.
 */
import type { PaystormCommand } from './types.ts';

export interface CommandEntry {
  /** The first word on the command line. */
  name: string;
  /** The module's `command` and `describe`, for the top-level help. */
  command: string;
  describe: string;
  load: () => Promise<PaystormCommand>;
}

export const commands: CommandEntry[] = [
  {
    name: 'run',
    command: 'run [scenarios..]',
    describe: 'Run scenarios against a target (default: the embedded reference service) and judge the history',
    load: async () => (await import('./run.ts')).runCommand,
  },
  {
    name: 'serve',
    command: 'serve',
    describe: 'Run the reference Card Payment Service (sandbox processor, webhooks, seeded bugs) until SIGINT/SIGTERM',
    load: async () => (await import('./serve.ts')).serveCommand,
  },
  {
    name: 'scenarios',
    command: 'scenarios',
    describe: 'List the scenarios, what each probes, and the rule ids it exercises',
    load: async () => (await import('./scenarios.ts')).scenariosCommand,
  },
  {
    name: 'check',
    command: 'check <path>',
    describe: 'Judge a saved run again (a run directory or its history file); rewrites its reports',
    load: async () => (await import('./check.ts')).checkCommand,
  },
  {
    name: 'history',
    command: 'history <path>',
    describe: 'Print a saved history (history.bin.gz or NDJSON) as NDJSON, one record a line',
    load: async () => (await import('./history.ts')).historyCommand,
  },
  {
    name: 'merge',
    command: 'merge <runs..>',
    describe: 'Judge several shards (paystorm runs and k6 --out json files) as one run: histories interleaved by time, clock offsets estimated, one verdict',
    load: async () => (await import('./merge.ts')).mergeCommand,
  },
  {
    name: 'report',
    command: 'report <dir>',
    describe: 'Re-render console, JSON, JUnit, Markdown and HTML reports of a saved run',
    load: async () => (await import('./report.ts')).reportCommand,
  },
  {
    name: 'repro',
    command: 'repro <run> <violation>',
    describe: "Replay one violation's repro against a target and say whether it still reproduces",
    load: async () => (await import('./repro.ts')).reproCommand,
  },
  {
    name: 'compare',
    command: 'compare <base> <new>',
    describe: 'Compare a run with a baseline (each a --save-baseline directory, a baseline.json or a run directory); exit 2 on a regression',
    load: async () => (await import('./compare.ts')).compareCommand,
  },
  {
    name: 'doctor',
    command: 'doctor',
    describe: 'Check the wiring: target, keys and modes, Toxiproxy, webhook round-trip',
    load: async () => (await import('./doctor.ts')).doctorCommand,
  },
  {
    name: 'selftest',
    command: 'selftest',
    describe: 'Run the suite against the reference service once per seeded bug; check each is caught by an invariant citing its rule and the clean service passes',
    load: async () => (await import('./selftest.ts')).selftestCommand,
  },
];
