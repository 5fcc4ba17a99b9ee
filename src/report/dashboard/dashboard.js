// Browser side of the live page (paystorm run --dashboard): reads the run's state from /events
// (server-sent events; /state.json polled where EventSource is missing) and draws it: the
// report's charts through PaystormCharts (page.js), the phase, time, counters and violations.
// At the verdict it shows the run's report.html. Inlined as-is (not compiled): plain modern JS only.
(function () {
  'use strict';
  var charts = {};
  var updates = 0;
  var listed = -1;
  var finalShown = false;
  var source = null;

  function $(id) { return document.getElementById(id); }
  function setText(id, v) { $(id).textContent = v; }

  function duration(ms) {
    var s = Math.max(0, Math.floor(ms / 1000));
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60);
    var ss = String(s % 60).padStart(2, '0');
    return h > 0 ? h + 'h' + String(m).padStart(2, '0') + 'm' + ss + 's' : m > 0 ? m + 'm' + ss + 's' : s + 's';
  }

  var STATUS_TEXT = { starting: 'starting: no load yet', running: 'running', judging: 'load ended: judging the history', done: 'done' };

  function showHeader(st) {
    setText('run-id', st.runId || '');
    setText('status-line', STATUS_TEXT[st.status] || st.status);
    setText('elapsed', duration(st.elapsedMs));
    setText('time-left', st.plan ? duration(st.plan.leftMs) + (st.plan.leftMs === 0 && st.status === 'running' ? ' (past the plan)' : '') : 'unknown');
    setText('plan-line', st.plan ? 'plan: ' + st.plan.line : '');
    setText('scenario', st.scenario ? st.scenario.name + ' (' + (st.scenario.index + 1) + '/' + st.scenario.total + ')' : '-');
    setText('phase', st.phase ? st.phase.note + (st.phase.leftMs !== null ? ' (' + (st.phase.leftMs / 1000).toFixed(1) + ' s left)' : '') : '-');
    var c = st.counters;
    setText('c-requests', String(c.requests));
    setText('c-rate', c.rate + '/s');
    setText('c-2xx', String(c.s2xx));
    setText('c-4xx', String(c.s4xx));
    setText('c-429', String(c.s429));
    setText('c-5xx', String(c.s5xx));
    setText('c-failures', String(c.failures));
    setText('c-dropped', String(c.dropped));
    setText('c-webhooks', String(c.webhooks));
    setText('c-violations', String(c.violations));
    var badge = $('verdict');
    if (!st.final) {
      badge.textContent = st.status === 'judging' ? 'JUDGING' : 'LIVE';
      badge.className = 'verdict ' + (st.status === 'judging' ? 'judging' : 'live');
    }
    $('live-header').classList.toggle('has-violations', c.violations > 0);
  }

  function seconds(t) { return t === null ? 'at the end' : (t / 1000).toFixed(1) + ' s'; }

  function showViolationsNote(st, total) {
    var note = total === 0 ? 'None confirmed so far.' : total + (total === 1 ? ' violation' : ' violations') + ' of ' + st.violations.length + (st.violations.length === 1 ? ' invariant' : ' invariants') + '; the first few of each are shown, the final report has them all.';
    // The judge lets a saturated load go first: what it has not read yet shows when it catches up.
    if (st.judgeHeld) note += ' The judge is yielding to the saturated load: violations found meanwhile show when it catches up (at most about 30 s late).';
    setText('violations-note', note);
    document.body.dataset.judgeHeld = st.judgeHeld ? 'true' : 'false';
  }

  // One line per violated invariant: when first found, how many, and the first few examples.
  function showViolations(st) {
    var total = st.counters.violations;
    showViolationsNote(st, total);
    if (total === listed) return;
    listed = total;
    var list = $('violation-list');
    list.textContent = '';
    st.violations.forEach(function (v) {
      var li = document.createElement('li');
      li.className = 'finding violation';
      li.dataset.invariant = v.invariant;
      li.dataset.atEnd = String(v.atEnd);
      li.dataset.count = String(v.count);
      var when = document.createElement('span');
      when.className = 'when mono';
      when.textContent = v.atEnd ? 'found by the final verdict' : 'first at ' + seconds(v.examples[0].t);
      var name = document.createElement('span');
      name.className = 'mono inv-id';
      name.textContent = v.invariant;
      var rules = document.createElement('span');
      rules.className = 'rules';
      v.rules.forEach(function (r) { var code = document.createElement('code'); code.textContent = r; rules.appendChild(code); });
      var count = document.createElement('span');
      count.className = 'badge fail';
      count.textContent = v.atEnd ? v.count + (v.count === 1 ? ' example' : ' examples') : v.count + ' found';
      li.append(when, ' ', name, ' ', rules, ' ', count);
      v.examples.forEach(function (e) {
        var msg = document.createElement('div');
        msg.className = 'msg';
        msg.textContent = (v.atEnd ? '' : seconds(e.t) + ': ') + e.message + (e.requestIds.length ? ' (' + e.requestIds.join(', ') + ')' : '');
        li.appendChild(msg);
      });
      list.appendChild(li);
    });
  }

  function showCharts(st) {
    var points = 0;
    st.charts.forEach(function (spec) {
      var entry = charts[spec.id];
      if (entry) entry.update(spec);
      else {
        var el = document.createElement('div');
        el.className = 'chart';
        el.id = spec.id;
        var h3 = document.createElement('h3');
        h3.textContent = spec.title;
        var body = document.createElement('div');
        body.className = 'chart-body';
        el.append(h3, body);
        $('charts-' + spec.group).appendChild(el);
        entry = charts[spec.id] = PaystormCharts.draw(el, spec);
      }
      points += Number(entry.el.dataset.points || 0);
    });
    document.body.dataset.points = String(points);
  }

  function showFinal(f) {
    finalShown = true;
    var badge = $('verdict');
    badge.textContent = f.verdict.toUpperCase();
    badge.className = 'verdict ' + f.verdict;
    $('live-header').classList.add(f.verdict);
    setText('status-line', f.reason + ' (exit ' + f.exitCode + ')');
    $('live').hidden = true;
    $('final').hidden = false;
    $('report-frame').src = 'report';
    if (source) source.close();
  }

  function show(st) {
    showHeader(st);
    showViolations(st);
    showCharts(st);
    updates++;
    document.body.dataset.status = st.status;
    document.body.dataset.updates = String(updates);
    $('connection').textContent = '';
    if (st.final && !finalShown) showFinal(st.final);
  }

  function lost() {
    if (!finalShown) $('connection').textContent = 'connection to paystorm lost: retrying (the run may have ended)';
  }

  if (window.EventSource) {
    source = new EventSource('events');
    source.onmessage = function (e) { show(JSON.parse(e.data)); };
    source.onerror = lost;
  } else {
    var poll = function () {
      fetch('state.json', { cache: 'no-store' }).then(function (r) { return r.json(); }).then(show, lost).then(function () {
        if (!finalShown) setTimeout(poll, 2000);
      });
    };
    poll();
  }
})();
