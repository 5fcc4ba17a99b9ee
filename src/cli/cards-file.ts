/**
 * The cards file (`--cards FILE`, or `cards` in the config file): an object of outcome -> card
 * number, validated here from the spec's tables (src/spec/cards.ts), which stay free of zod.
 */
import { z } from 'zod';
import { CARD_NUMBER_DESCRIPTION, CARD_NUMBER_PATTERN, CARD_OUTCOMES, luhnValid, sharedCardNumbers, type CardOutcome } from '../spec/index.ts';
// From its own module, not the index: the package's declarations (dist/types) then need no Node types.
import type { CardsFile } from '../spec/cards.ts';

const cardNumber = z
  .string({ error: `expected ${CARD_NUMBER_DESCRIPTION} as a JSON string, e.g. "4242424242424242" (a JSON number loses digits)` })
  .regex(CARD_NUMBER_PATTERN, CARD_NUMBER_DESCRIPTION)
  // Card numbers carry a Luhn check digit; one that fails it is declined invalid_number, and the
  // outcome it stands for would be blamed on the service.
  .refine(luhnValid, 'is not a card number: its last digit fails the Luhn check (a typo?). Copy the test card number again.')
  .optional();

export const cardsFileSchema: z.ZodType<CardsFile> = z
  .object(Object.fromEntries(CARD_OUTCOMES.map((o) => [o, cardNumber])) as Record<CardOutcome, typeof cardNumber>)
  .strict()
  .superRefine((cards, ctx) => {
    for (const [outcome, first] of sharedCardNumbers(cards)) ctx.addIssue({ code: 'custom', path: [outcome], message: `is the same number as "${first}"; each outcome needs its own test card` });
  });
