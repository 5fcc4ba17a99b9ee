import { probeInvariant } from '../lib/probe-invariant.ts';

export default probeInvariant({
  id: 'amount-minimum',
  title: 'An amount below 1 gives 400 parameter_invalid with param amount',
  rule: 'PAY-2',
  ops: ['create', 'create_hpp', 'raw'],
  notExercised: 'no create was sent with an amount below 1',
});
