/**
 * Writes schema/config.json, the JSON Schema of paystorm.config.json, from the options' own
 * definitions (src/cli/config-schema.ts). With --check it writes nothing and exits 1 when the
 * file differs from what it would write (the package build runs this before packing).
 *
 *   npx tsx scripts/config-schema.ts [--check]      (npm run schema)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { configSchemaText } from '../src/cli/config-schema.ts';

const file = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'schema', 'config.json');
const text = configSchemaText();
if (process.argv.includes('--check')) {
  let current = '';
  try {
    current = readFileSync(file, 'utf8');
  } catch {
    // Missing: differs.
  }
  if (current !== text) {
    console.error('schema/config.json is not what src/cli/config-schema.ts generates from the config options: run `npm run schema` and commit it.');
    process.exit(1);
  }
} else {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, text);
  console.log(`wrote ${file}`);
}
