import { probeInvariant } from '../lib/probe-invariant.ts';

export default probeInvariant({
  id: 'non-json-body',
  title: 'A body that is not JSON gives 400 invalid_request_body',
  rule: 'PAY-4',
  ops: ['create', 'create_hpp', 'raw'],
  notExercised: 'no request was sent with a body that is not JSON',
});
