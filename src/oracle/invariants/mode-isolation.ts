import { foreignAccessInvariant } from '../lib/foreign-access.ts';

/** AUTH-8: test and live data are isolated; a key of one mode cannot read or refund a payment of the other. */
export default foreignAccessInvariant({
  id: 'mode-isolation',
  title: 'A test key cannot retrieve or refund a live payment, nor a live key a test one (404 resource_missing)',
  rules: ['AUTH-8'],
  foreign: (owner, requester) => (owner.mode && owner.mode !== requester.mode ? `${requester.mode} key, ${owner.mode} payment` : null),
  includeLists: false,
  notExercised: 'no key retrieved or refunded a payment of the other mode',
});
