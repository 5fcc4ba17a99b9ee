/**
 * A user's own scenario (docs/own-scenarios.md): a checkout smoke test. Each test key creates a
 * few Direct API payments with the sandbox's succeeding card, polls each until it settles, and
 * lists the key's newest payments. Run it with
 *
 *   npx paystorm run ./docs/examples/checkout-smoke.ts                  # against the embedded service
 *   npx paystorm run ./checkout-smoke.ts --target URL --key K --cards cards.json
 *
 * Every request goes through ctx's client, so it is recorded in the history and judged by the
 * same oracle as the built-in scenarios. `rules` lists what it exercises: a rule declared here
 * that the run does not exercise makes the verdict fail, so declare only what always runs.
 */
import type { Scenario } from '../../src/spec/scenario.ts';

const PAYMENTS_PER_KEY = 3;

const checkoutSmoke: Scenario = {
  name: 'checkout-smoke',
  description: 'Each test key pays with the succeeding card, polls until settled, lists its newest payments',
  rules: ['PAY-1', 'PAY-6', 'SM-6', 'LIST-1'],
  thresholds: ['http_req_failed: rate<0.01'],
  async run(ctx) {
    const card = ctx.cards.succeeds;
    if (!card) {
      ctx.log('checkout-smoke: no "succeeds" card in the cards file; nothing to do');
      return;
    }
    const year = new Date().getUTCFullYear() + 2;
    for (const key of ctx.testKeys.filter((k) => k.directApi !== false)) {
      const client = ctx.client(key);
      for (let i = 0; i < PAYMENTS_PER_KEY && !ctx.signal.aborted; i++) {
        const created = await client.create(
          {
            amount: 1000 + i,
            currency: 'EUR',
            card: { number: card, exp_month: 12, exp_year: year, cvc: '123', holder_name: 'Smoke Test' },
            description: `checkout smoke ${i}`,
          },
          { cardOutcome: 'succeeds' },
        );
        if (created.status === 201 && created.payment) await client.pollUntilSettled(created.payment.id);
      }
      await client.list({ limit: 10 });
    }
  },
};

export default checkoutSmoke;
