import { foreignAccessInvariant } from '../lib/foreign-access.ts';

/** SEC-1: with keys of two merchants, one merchant's key cannot read, list or refund the other's payment. */
export default foreignAccessInvariant({
  id: 'merchant-isolation',
  title: "One merchant's key cannot read, list or refund another merchant's payment (404 resource_missing)",
  rules: ['SEC-1'],
  foreign: (owner, requester) => (owner.merchant && owner.merchant !== requester.merchant ? `merchant ${requester.merchant}, payment of merchant ${owner.merchant}` : null),
  includeLists: true,
  notExercised: "no key touched or could have listed another merchant's payment (the run needs keys of two merchants)",
});
