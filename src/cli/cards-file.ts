/**
 * The cards file (`--cards FILE`, or `cards` in the config file): an object of outcome -> card
 * number, validated here from the spec's tables (src/spec/cards.ts), which stay free of zod.
 */
import { z } from 'zod';
import { CARD_NUMBER_DESCRIPTION, CARD_NUMBER_PATTERN, CARD_OUTCOMES, type CardOutcome, type CardsFile } from '../spec/index.ts';

const cardNumber = z.string().regex(CARD_NUMBER_PATTERN, CARD_NUMBER_DESCRIPTION).optional();

export const cardsFileSchema: z.ZodType<CardsFile> = z.object(Object.fromEntries(CARD_OUTCOMES.map((o) => [o, cardNumber])) as Record<CardOutcome, typeof cardNumber>).strict();
