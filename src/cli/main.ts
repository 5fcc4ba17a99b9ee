/**
 * paystorm's command line (yargs). Each command lives in its own module under commands/,
 * loaded only when it runs (commands/index.ts), so `paystorm --help` starts fast.
 */
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { EXIT, PaystormError } from '../spec/exit-codes.ts';
import { commands } from './commands/index.ts';

/** The command named on the command line: its first word that is not an option. */
function commandNameOf(argv: readonly string[]): string | undefined {
  return argv.find((a) => !a.startsWith('-'));
}

export async function main(argv: string[] = hideBin(process.argv)): Promise<number> {
  let exitCode: number = EXIT.pass;
  // --debug: an unexpected error prints its stack trace (by default only its message).
  const debug = argv.includes('--debug') || process.env.PAYSTORM_DEBUG === '1';
  const parser = yargs(argv)
    .scriptName('paystorm')
    .usage('$0 <command> [options]\n\nLoad-and-chaos testing harness for the Card Payment Service API.')
    .strict()
    .demandCommand(1, 'Name a command: paystorm run, serve, scenarios, check, report, doctor, selftest.')
    .recommendCommands()
    .option('debug', { type: 'boolean', global: true, describe: 'On an unexpected error, print its stack trace' })
    .help()
    .alias('h', 'help')
    .version()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .fail((msg, err) => {
      throw err ?? new PaystormError(msg, EXIT.usage);
    });
  try {
    // `--duration -5s` reaches yargs as the flags -5 and -s ("Unknown arguments: 5, s"): name it.
    const negative = argv.findIndex((a, i) => i > 0 && /^-\d/.test(a) && !/^-\d+(\.\d+)?$/.test(a) && /^--[a-z]/.test(argv[i - 1]));
    if (negative > 0) throw new PaystormError(`${argv[negative - 1]}: ${argv[negative]} is negative; pass a value above zero (e.g. ${argv[negative - 1]} 30s).`, EXIT.usage, argv[negative - 1]);
    const named = commandNameOf(argv);
    for (const entry of commands) {
      if (entry.name !== named) {
        // Listed in the help; never run (its module is not loaded).
        parser.command(entry.command, entry.describe);
        continue;
      }
      const c = await entry.load();
      parser.command({
        ...c,
        handler: async (args) => {
          exitCode = (await c.handler(args)) ?? EXIT.pass;
        },
      });
    }
    await parser.parseAsync();
    return exitCode;
  } catch (err) {
    if (err instanceof PaystormError) {
      process.stderr.write(`paystorm: ${err.message}\n`);
      if (debug && err.stack) process.stderr.write(`${err.stack}\n`);
      return err.exitCode;
    }
    const e = err as Error;
    // An error paystorm did not foresee: its message, and the trace only when asked for.
    process.stderr.write(`paystorm: ${e?.message ?? String(err)}\n`);
    if (debug) process.stderr.write(`${e?.stack ?? ''}\n`);
    else process.stderr.write('paystorm: (an unexpected error; rerun with --debug for its stack trace)\n');
    return EXIT.usage;
  }
}
