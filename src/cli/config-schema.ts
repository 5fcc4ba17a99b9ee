/**
 * The JSON Schema of paystorm.config.json (schema/config.json, shipped in the package so editors
 * complete and check the file), generated from the definitions paystorm itself validates with:
 * runConfigSchema's fields and types, the duration grammar, the fault step schema, and each
 * field's description from its flag's `--help` (or the field's own `.describe()` when no flag
 * has it). `npm run schema` writes the file; test/cli/config-schema.test.ts keeps it equal to this.
 *
 * The schema is an editor's aid: the up-front checks of `paystorm run` (run-checks.ts) stay the
 * authority and also check what a schema cannot (a scenario name exists, a threshold parses).
 */
import { z } from 'zod';
import { faultStepInputSchema } from '../chaos/fault-schedule.ts';
import { runCommand } from './commands/run.ts';
import { durationFields, runConfigSchema } from './config.ts';
import { DURATION_PATTERN } from './duration.ts';
import { flagOf } from './run-checks.ts';

/** Where the file is found in a project that installed paystorm (docs/own-scenarios.md). */
export const CONFIG_SCHEMA_PATH = './node_modules/paystorm/schema/config.json';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema> };

/** The `--help` text of each option and positional of `paystorm run`, by flag (`--duration`) or positional name. */
function runHelp(): Map<string, string> {
  const help = new Map<string, string>();
  const recorder: object = new Proxy(
    {},
    {
      get: (_, method) => (name: string, opts?: { describe?: string }) => {
        if (method === 'option' && opts?.describe) help.set(`--${name}`, opts.describe);
        else if (method === 'positional' && opts?.describe) help.set(name, opts.describe);
        return recorder;
      },
    },
  );
  (runCommand.builder as (y: never) => unknown)(recorder as never);
  return help;
}

/** Without zod's own draft URI: the document states its own below. */
function bare(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as JsonSchema;
  return rest;
}

function configJsonSchema(): JsonSchema {
  const help = runHelp();
  const generated = bare(runConfigSchema);
  const properties: Record<string, JsonSchema> = {
    $schema: { type: 'string', description: `The JSON Schema of this file, for editors: "${CONFIG_SCHEMA_PATH}". paystorm ignores it.` },
  };
  const durations = new Set<string>(durationFields());
  for (const [key, field] of Object.entries(generated.properties ?? {})) {
    let schema: JsonSchema = field;
    // A bare number is refused (is 5 five seconds or five ms?): only a string with its units.
    if (durations.has(key)) schema = { type: 'string', pattern: DURATION_PATTERN };
    if (key === 'faults') schema = { ...field, items: bare(faultStepInputSchema) };
    // The scenarios are the positional arguments, the rest flags.
    const [helpKey, onCommandLine] = key === 'scenarios' ? ['scenarios', 'paystorm run SCENARIO...'] : [flagOf(key), flagOf(key)];
    const flagHelp = help.get(helpKey);
    const own = typeof field.description === 'string' ? field.description : undefined;
    const described = own ?? (flagHelp === undefined ? undefined : `${flagHelp}. On the command line: ${onCommandLine} (wins over this file).`);
    if (described === undefined) throw new Error(`config-schema: the config field ${key} has no description: give it a flag with --help text, or .describe() it in src/cli/config.ts`);
    properties[key] = { ...schema, description: described };
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'urn:paystorm:schema:config',
    title: 'paystorm.config.json',
    description: 'Options of `paystorm run --config FILE`: the run flags in camelCase (flags on the command line win). paystorm checks every field before a run starts and names the fix (exit 3).',
    type: 'object',
    properties,
    additionalProperties: false,
  };
}

/** The text of schema/config.json. */
export const configSchemaText = (): string => `${JSON.stringify(configJsonSchema(), null, 2)}\n`;
