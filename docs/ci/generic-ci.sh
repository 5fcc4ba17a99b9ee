#!/usr/bin/env bash
# paystorm as a release gate in any CI system: start the service, run the suite, keep the
# reports, gate on the exit code. Set PAYSTORM_TARGET, PAYSTORM_KEY_1 and PAYSTORM_KEY_2
# (test keys) in the CI's secret store; CARDS_FILE points at the sandbox's test cards;
# PAYSTORM_DIR at a checkout of paystorm with `npm ci` done (default ./paystorm).
set -u
: "${PAYSTORM_TARGET:?set PAYSTORM_TARGET to the service under test, e.g. http://127.0.0.1:4010}"
: "${PAYSTORM_KEY_1:?set PAYSTORM_KEY_1 to a test key}"
: "${PAYSTORM_KEY_2:?set PAYSTORM_KEY_2 to a second test key}"

node "${PAYSTORM_DIR:-paystorm}/bin/paystorm.js" run \
  --target "$PAYSTORM_TARGET" \
  --key "acme:$PAYSTORM_KEY_1" --key "acme:$PAYSTORM_KEY_2" \
  ${CARDS_FILE:+--cards "$CARDS_FILE"} \
  --threshold 'http_req_duration{op:create}: p(99)<800'
status=$?

# reports/latest/: junit.xml for the CI's test view, summary.md for a job summary,
# report.html for people, summary.json for machines. Archive the folder as an artifact.
case $status in
  0) echo "paystorm: pass" ;;
  1) echo "paystorm: an invariant of the spec was violated (see reports/latest/summary.md)" ;;
  2) echo "paystorm: a threshold was breached" ;;
  3) echo "paystorm: usage or configuration error" ;;
  4) echo "paystorm: the target could not be reached or does not speak the API" ;;
  130) echo "paystorm: interrupted" ;;
esac
exit $status
