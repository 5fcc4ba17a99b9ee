// Browser side of report.html: draws the chart specs built by chart-data.ts with uPlot.
// Inlined into the page as-is (not compiled), so plain modern JS only.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('paystorm-data').textContent);
  var FAULT_FILL = 'rgba(220, 38, 38, 0.10)';
  var FAULT_EDGE = 'rgba(220, 38, 38, 0.55)';
  var FAULT_LABEL = '#991b1b';
  var EDGE_STROKE = 'rgba(107, 114, 128, 0.8)';

  // Shades fault windows behind the series and draws window-edge markers on top.
  function overlays(spec) {
    function xPos(u, v) { return u.valToPos(v, 'x', true); }
    return {
      hooks: {
        drawClear: [function (u) {
          var ctx = u.ctx, top = u.bbox.top, height = u.bbox.height;
          var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
          ctx.save();
          spec.faults.forEach(function (f) {
            var x0 = Math.max(left, xPos(u, f.start));
            var x1 = Math.min(right, xPos(u, f.end));
            if (!(x1 > x0)) x1 = Math.min(right, x0 + 2 * devicePixelRatio); // an instant fault still shows
            if (x0 >= right || x1 <= left) return;
            ctx.fillStyle = FAULT_FILL;
            ctx.fillRect(x0, top, x1 - x0, height);
            ctx.fillStyle = FAULT_EDGE;
            ctx.fillRect(x0, top, 1 * devicePixelRatio, height);
            ctx.fillRect(x1 - devicePixelRatio, top, 1 * devicePixelRatio, height);
          });
          ctx.restore();
        }],
        draw: [function (u) {
          var ctx = u.ctx, top = u.bbox.top, height = u.bbox.height;
          var left = u.bbox.left, right = u.bbox.left + u.bbox.width;
          ctx.save();
          ctx.strokeStyle = EDGE_STROKE;
          ctx.lineWidth = 1 * devicePixelRatio;
          ctx.setLineDash([4 * devicePixelRatio, 3 * devicePixelRatio]);
          spec.edges.forEach(function (t) {
            var x = Math.round(xPos(u, t));
            if (x < left || x > right) return;
            ctx.beginPath();
            ctx.moveTo(x, top);
            ctx.lineTo(x, top + height);
            ctx.stroke();
          });
          ctx.setLineDash([]);
          // A small triangle above the plot marks each edge even where a series line covers the dashes.
          var tri = 5 * devicePixelRatio;
          ctx.fillStyle = EDGE_STROKE;
          spec.edges.forEach(function (t) {
            var x = Math.round(xPos(u, t));
            if (x < left || x > right) return;
            ctx.beginPath();
            ctx.moveTo(x - tri, top - tri - 2);
            ctx.lineTo(x + tri, top - tri - 2);
            ctx.lineTo(x, top - 2);
            ctx.closePath();
            ctx.fill();
          });
          var pad = 3 * devicePixelRatio;
          ctx.font = (11 * devicePixelRatio) + 'px system-ui, "DejaVu Sans", sans-serif';
          ctx.textAlign = 'left';
          ctx.textBaseline = 'top';
          // Labels of windows that start close together go on the next free row, never on top of each other.
          var rowH = 14 * devicePixelRatio, rows = [], placed = 0;
          var maxRows = Math.max(1, Math.floor((height / 2) / rowH));
          spec.faults.forEach(function (f) {
            var x0 = Math.max(left, xPos(u, f.start));
            if (x0 >= right) return;
            var w = ctx.measureText(f.label).width + 6;
            var x = Math.min(x0 + pad, right - w);
            var row = 0;
            while (row < rows.length && rows[row] > x) row++;
            if (row >= maxRows) return; // too crowded: the faults table lists every window
            rows[row] = x + w + 4;
            var y = top + pad + row * rowH;
            ctx.fillStyle = 'rgba(255, 255, 255, 0.85)';
            ctx.fillRect(x - 2, y - 1, w, 13 * devicePixelRatio);
            ctx.fillStyle = FAULT_LABEL;
            ctx.fillText(f.label, x, y);
            placed++;
          });
          u.root.dataset.faultLabels = String(placed);
          u.root.dataset.faultLabelRows = String(rows.length);
          ctx.restore();
        }],
      },
    };
  }

  // Auto-ranging (first draw, double-click) shows the whole run, so fault windows line up
  // across charts; a drag-zoom (any other min/max) is kept as asked.
  function fullRunRange(spec) {
    return function (u, min, max) {
      var xs = u.data[0];
      if (min === xs[0] && max === xs[xs.length - 1]) return [Math.min(min, spec.xMin), Math.max(max, spec.xMax)];
      return [min, max];
    };
  }

  function fmt(v) {
    if (v === null || v === undefined) return '--';
    return Number.isInteger(v) ? String(v) : Math.abs(v) < 10 ? v.toFixed(2) : v.toFixed(1);
  }

  function lastValue(values) {
    for (var i = values.length - 1; i >= 0; i--) if (values[i] !== null && values[i] !== undefined) return values[i];
    return null;
  }

  // Without the cursor on the plot the legend shows each series' last value (marked "last"), not "--".
  function legendValue(values) {
    var last = lastValue(values);
    return function (u, v, sidx, idx) {
      if (idx === null || idx === undefined) return last === null ? '--' : fmt(last) + ' (last)';
      return fmt(v);
    };
  }

  function seriesOpts(s) {
    var o = { label: s.label, stroke: s.color, width: s.width || 1.25, spanGaps: false, scale: s.scale || 'y', points: { show: false }, value: legendValue(s.values) };
    if (s.dash) o.dash = s.dash;
    if (s.stepped) o.paths = uPlot.paths.stepped({ align: 1 });
    if (s.pointsOnly) {
      o.paths = function () { return null; };
      o.points = { show: true, size: 7, stroke: s.color, fill: s.color, width: 1 };
    }
    return o;
  }

  function spikeFlattens(spec) {
    var vs = [];
    spec.series.forEach(function (s) { s.values.forEach(function (v) { if (v !== null && v > 0) vs.push(v); }); });
    if (vs.length < 4) return false;
    vs.sort(function (a, b) { return a - b; });
    return vs[vs.length - 1] > 20 * vs[Math.floor(vs.length / 2)];
  }

  function chartWidth(el) {
    return Math.max(280, Math.floor(el.getBoundingClientRect().width) - 4);
  }

  var plots = [];
  var rendered = 0;
  data.charts.forEach(function (spec) {
    var el = document.getElementById(spec.id);
    if (!el) return;
    var body = el.querySelector('.chart-body');
    var points = 0;
    spec.series.forEach(function (s) { s.values.forEach(function (v) { if (v !== null) points++; }); });
    if (spec.x.length === 0 || points === 0) {
      body.innerHTML = '<div class="nodata">no data</div>';
      el.dataset.points = '0';
      return;
    }
    var hasY2 = spec.series.some(function (s) { return s.scale === 'y2'; });
    var logOk = spec.group === 'latency';
    // One spike flattens a linear latency axis: start on a log scale when the top is far above the typical value.
    var useLog = logOk && spikeFlattens(spec);
    if (logOk) {
      var tools = document.createElement('span');
      tools.className = 'chart-tools';
      tools.innerHTML = '<label><input type="checkbox" class="log-toggle"' + (useLog ? ' checked' : '') + '> log scale</label>';
      el.querySelector('h3').appendChild(tools);
    }
    var entry = { plot: null, body: body, el: el };
    function build(log) {
      var axes = [
        { label: 'seconds since start', size: 40, labelSize: 18, grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' } },
        { label: spec.yLabel + (log ? ' (log)' : ''), scale: 'y', size: 56, labelSize: 18, grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' } },
      ];
      if (hasY2) axes.push({ label: spec.y2Label || '', scale: 'y2', side: 1, size: 50, labelSize: 18, grid: { show: false } });
      var scales = {
        x: { time: false, range: fullRunRange(spec) },
        y: log ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } },
      };
      if (hasY2) scales.y2 = { range: function (u, min, max) { return [0, max > 0 ? max * 1.15 : 1]; } };
      var height = spec.group === 'throughput' ? 280 : 220;
      var opts = {
        width: chartWidth(body),
        height: height,
        scales: scales,
        axes: axes,
        series: [{ label: 't (s)', value: legendValue(spec.x) }].concat(spec.series.map(seriesOpts)),
        legend: { live: true },
        cursor: { drag: { x: true, y: false } },
        plugins: [overlays(spec)],
      };
      // A log axis cannot show 0 ms: such points are left out rather than clamped.
      var cols = [spec.x].concat(spec.series.map(function (s) { return log ? s.values.map(function (v) { return v !== null && v > 0 ? v : null; }) : s.values; }));
      if (entry.plot) entry.plot.destroy();
      entry.plot = new uPlot(opts, cols, body);
      el.dataset.scale = log ? 'log' : 'linear';
    }
    build(useLog);
    if (logOk) el.querySelector('.log-toggle').addEventListener('change', function (e) { build(e.target.checked); });
    plots.push(entry);
    el.dataset.points = String(points);
    rendered++;
  });

  window.addEventListener('resize', function () {
    plots.forEach(function (p) { p.plot.setSize({ width: chartWidth(p.body), height: p.plot.height }); });
  });
  document.body.dataset.chartsRendered = String(rendered);
})();
