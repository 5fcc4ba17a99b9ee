import { probeInvariant } from '../lib/probe-invariant.ts';

export default probeInvariant({
  id: 'missing-field-named',
  title: 'A missing required body field gives 400 parameter_invalid naming it in param',
  rule: 'PAY-3',
  ops: ['create', 'create_hpp', 'raw'],
  notExercised: 'no create was sent with a required body field missing',
});
