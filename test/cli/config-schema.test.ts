/**
 * schema/config.json, the JSON Schema of paystorm.config.json that the package ships for editors:
 * the committed file is what src/cli/config-schema.ts generates from the options' definitions,
 * and read as an editor reads it (here through zod's own JSON Schema reader) it accepts the
 * configs paystorm accepts and refuses those paystorm refuses.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { CONFIG_SCHEMA_PATH, configSchemaText } from '../../src/cli/config-schema.ts';
import { loadConfigFile } from '../../src/cli/config.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const committed = readFileSync(join(root, 'schema', 'config.json'), 'utf8');
const schema = JSON.parse(committed) as { $schema: string; $id: string; properties: Record<string, { description?: string }> };
const editor = z.fromJSONSchema(schema as never);
const dir = mkdtempSync(join(tmpdir(), 'paystorm-config-schema-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let n = 0;
/** Whether `paystorm run --config FILE` accepts the config (its up-front checks, exit 3 otherwise). */
function loaderAccepts(config: unknown): boolean {
  const file = join(dir, `config-${++n}.json`);
  writeFileSync(file, JSON.stringify(config));
  try {
    resolveRunConfig({}, loadConfigFile(file), file);
    return true;
  } catch {
    return false;
  }
}

/** The first ```json block after the heading line `heading` of a doc. */
function jsonBlockAfter(doc: string, heading: string): unknown {
  const text = readFileSync(join(root, doc), 'utf8');
  const at = text.split('\n').indexOf(heading);
  expect(at, `${doc} has the heading "${heading}"`).toBeGreaterThanOrEqual(0);
  const block = /```json\n([\s\S]*?)\n```/.exec(text.split('\n').slice(at).join('\n'));
  expect(block, `${doc}: a json block after "${heading}"`).not.toBeNull();
  return JSON.parse(block![1]);
}

const fault = { at: 0, duration: 1000, proxy: 'upstream', type: 'latency', attributes: { latency: 200 } };

describe('schema/config.json', () => {
  it('is what src/cli/config-schema.ts generates (run `npm run schema` and commit it when this fails)', () => {
    expect(committed).toBe(configSchemaText());
  });

  it('names itself and its draft, and describes every field', () => {
    expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(schema.$id).toBeTruthy();
    const undescribed = Object.entries(schema.properties).filter(([, p]) => !p.description).map(([k]) => k);
    expect(undescribed).toEqual([]);
    expect(schema.properties.duration.description).toMatch(/--duration/);
  });

  it('accepts the config examples of the docs, as paystorm does', () => {
    for (const [doc, heading] of [
      ['docs/chaos.md', '## Fault schedules'],
      ['docs/own-scenarios.md', '## Install as a dev dependency'],
    ] as const) {
      const config = jsonBlockAfter(doc, heading);
      expect(editor.safeParse(config).success, `${doc}: the schema accepts its example`).toBe(true);
      expect(loaderAccepts(config), `${doc}: paystorm accepts its example`).toBe(true);
    }
  });

  const accepted: [string, unknown][] = [
    ['$schema, as the docs write it', { $schema: CONFIG_SCHEMA_PATH, scenarios: ['mixed'], duration: '5s' }],
    ['the flags-win example of the config tests', { rate: 5, duration: '10s', thresholds: ['http_reqs: count>1'] }],
    ['a staging target with keys, cards and webhooks', { target: 'https://staging.example.com', keys: ['acme:svc_test_sk_abcdefghijkl1234'], cards: { succeeds: '4242424242424242' }, webhookPort: 4020, webhookSecret: ['whsec_a', 'whsec_b'] }],
    ['durations with units', { maxDuration: '1h30m', requestTimeout: '500ms', settleBound: '2.5s' }],
    ['a fault schedule', { faults: [fault, { at: 2000, duration: 500, proxy: 'upstream', type: 'down' }] }],
    ['embedded target options', { presentation: 'A', timeScale: 0.1, rateLimit: 20, windowMs: 2000 }],
  ];
  const refused: [string, unknown][] = [
    ['a misspelt field', { duraton: '5s' }],
    ['a bare number as a duration', { duration: 5 }],
    ['a duration without its unit, as a string', { maxDuration: '90' }],
    ['a list field given as a string', { keys: 'acme:svc_test_sk_abcdefghijkl1234' }],
    ['a target that is no URL', { target: 'staging' }],
    ['a rate window of part of a second', { windowMs: 1500 }],
    ['an unknown presentation', { presentation: 'C' }],
    ['an unknown card outcome', { cards: { lucky: '4242424242424242' } }],
    ['a misspelt fault step field', { faults: [{ ...fault, attributes: undefined, atributes: { latency: 200 } }] }],
    ['an unknown fault type', { faults: [{ ...fault, type: 'latncy' }] }],
    ['a share above 1', { webhookFailShare: 1.5 }],
  ];
  it.each(accepted)('accepts %s, as paystorm does', (_, config) => {
    expect(editor.safeParse(config).success).toBe(true);
    expect(loaderAccepts(config)).toBe(true);
  });
  it.each(refused)('refuses %s, as paystorm does', (_, config) => {
    expect(editor.safeParse(config).success).toBe(false);
    expect(loaderAccepts(config)).toBe(false);
  });
});
