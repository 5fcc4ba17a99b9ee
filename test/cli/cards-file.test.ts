/**
 * The cards file is checked before any load: a number that fails the Luhn check (a typo) or one
 * number for two outcomes would otherwise be declined or ambiguous and blamed on the service.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_TEST_CARDS, EXIT, PaystormError } from '../../src/spec/index.ts';
import { cardsFileSchema } from '../../src/cli/cards-file.ts';
import { loadCardsFile } from '../../src/cli/config.ts';

function refusal(cards: unknown): string {
  const dir = mkdtempSync(join(tmpdir(), 'paystorm-cards-'));
  const file = join(dir, 'cards.json');
  writeFileSync(file, JSON.stringify(cards));
  try {
    loadCardsFile(file);
  } catch (e) {
    expect(e).toBeInstanceOf(PaystormError);
    expect((e as PaystormError).exitCode).toBe(EXIT.usage);
    return (e as Error).message;
  }
  return '';
}

describe('cards file', () => {
  it('the default test cards pass', () => {
    expect(cardsFileSchema.safeParse(DEFAULT_TEST_CARDS).success).toBe(true);
  });
  it('a number failing the Luhn check is refused, naming the outcome', () => {
    const m = refusal({ succeeds: DEFAULT_TEST_CARDS.succeeds, do_not_honor: '4000000000000003' });
    expect(m).toMatch(/do_not_honor.*Luhn check/);
    expect(m).not.toMatch(/--cards .*--cards/);
  });
  it('one number for two outcomes is refused', () => {
    expect(refusal({ succeeds: DEFAULT_TEST_CARDS.succeeds, insufficient_funds: DEFAULT_TEST_CARDS.succeeds })).toMatch(/insufficient_funds.*same number as "succeeds"/);
  });
  it('a number written as a JSON number says to write it as a string', () => {
    expect(refusal({ succeeds: 4242424242424242 })).toMatch(/succeeds.*JSON string/);
  });
});
