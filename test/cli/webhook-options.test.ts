/** --webhook-secret (repeatable, or a list in the config file) and --webhook-signature-header. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfigFile, runConfigSchema } from '../../src/cli/config.ts';
import { resolveRunConfig } from '../../src/cli/run-checks.ts';
import { PaystormError } from '../../src/spec/index.ts';

describe('webhook receiver options', () => {
  it('a config file gives webhookSecret as one string or a list, and webhookSignatureHeader', () => {
    const dir = mkdtempSync(join(tmpdir(), 'paystorm-wh-opts-'));
    const one = join(dir, 'one.json');
    writeFileSync(one, JSON.stringify({ webhookSecret: 'whsec_aaaaaaaa' }));
    expect(loadConfigFile(one).webhookSecret).toBe('whsec_aaaaaaaa');
    const two = join(dir, 'two.json');
    writeFileSync(two, JSON.stringify({ webhookSecret: ['whsec_aaaaaaaa', 'whsec_bbbbbbbb'], webhookSignatureHeader: 'Acme-Signature' }));
    const cfg = resolveRunConfig({}, loadConfigFile(two), two);
    expect(cfg.webhookSecret).toEqual(['whsec_aaaaaaaa', 'whsec_bbbbbbbb']);
    expect(cfg.webhookSignatureHeader).toBe('Acme-Signature');
    expect(runConfigSchema.safeParse({ webhookSecret: [] }).success).toBe(false);
  });

  it('repeated --webhook-secret flags win over the file; bad values are usage errors naming the flag', () => {
    const cfg = resolveRunConfig({ webhookSecret: ['whsec_cccccccc', 'whsec_dddddddd'] }, { webhookSecret: 'whsec_aaaaaaaa' });
    expect(cfg.webhookSecret).toEqual(['whsec_cccccccc', 'whsec_dddddddd']);
    expect(() => resolveRunConfig({ webhookSecret: ['whsec_cccccccc', ' '] }, null)).toThrow(/--webhook-secret/);
    let err: unknown;
    try {
      resolveRunConfig({ webhookSignatureHeader: 'not a header' }, null);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(PaystormError);
    expect((err as Error).message).toMatch(/--webhook-signature-header/);
  });
});
