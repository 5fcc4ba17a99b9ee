import { probeInvariant } from '../lib/probe-invariant.ts';

/** PAY-5: currency, merchant_reference, description, metadata and return_url constraints (the probe knows which presentation requires return_url). */
export default probeInvariant({
  id: 'field-constraints',
  title: 'Field constraints are enforced with 400 parameter_invalid (currency, merchant_reference, description, metadata, return_url)',
  rule: 'PAY-5',
  ops: ['create', 'create_hpp', 'raw'],
  notExercised: 'no create probed a field constraint',
});
