/** paystorm's webhook receiver and the pieces it is made of. */
export { startWebhookReceiver, MAX_BODY_BYTES } from './receiver.ts';
export type { WebhookReceiver, WebhookReceiverOptions } from './receiver.ts';
export { readEnvelope } from './envelope.ts';
export type { EnvelopeReading } from './envelope.ts';
export { AnswerBook, chooseAnswer, draw, DEFAULT_FAIL_ATTEMPTS } from './answer.ts';
export type { Answer, AnswerPlan } from './answer.ts';
export { buildLeakScanner, findLeaks, redactBody, redactParsed } from './leaks.ts';
