// Browser side of report.html and of the live page: draws the chart specs built by chart-data.ts with uPlot.
// Inlined into the page as-is (not compiled), so plain modern JS only.
(function () {
  'use strict';
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
  // Read at draw time, so a chart whose data is replaced (the live page) shows its newest value.
  function legendValue(valuesOf) {
    return function (u, v, sidx, idx) {
      if (idx === null || idx === undefined) {
        var last = lastValue(valuesOf());
        return last === null ? '--' : fmt(last) + ' (last)';
      }
      return fmt(v);
    };
  }

  function seriesOpts(entry, i) {
    var s = entry.spec.series[i];
    var o = { label: s.label, stroke: s.color, width: s.width || 1.25, spanGaps: false, scale: s.scale || 'y', points: { show: false }, value: legendValue(function () { return entry.spec.series[i].values; }) };
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

  function pointsOf(spec) {
    var points = 0;
    spec.series.forEach(function (s) { s.values.forEach(function (v) { if (v !== null) points++; }); });
    return spec.x.length === 0 ? 0 : points;
  }

  // uPlot's columns: x, then each series (a log axis cannot show 0 ms: such points are left out rather than clamped).
  function columns(spec, log) {
    return [spec.x].concat(spec.series.map(function (s) { return log ? s.values.map(function (v) { return v !== null && v > 0 ? v : null; }) : s.values; }));
  }

  function sameSeries(a, b) {
    return a.series.length === b.series.length && a.series.every(function (s, i) { return s.label === b.series[i].label; });
  }

  var plots = [];

  // Draws one chart spec into its element (an h3 and a .chart-body); returns a handle whose
  // update(spec) redraws it with new data (the live page), keeping the scale the reader chose.
  function drawChart(el, spec) {
    var body = el.querySelector('.chart-body');
    var entry = { plot: null, body: body, el: el, spec: spec, log: false, tools: false };
    var logOk = spec.group === 'latency';
    function build(log) {
      var s = entry.spec;
      var hasY2 = s.series.some(function (x) { return x.scale === 'y2'; });
      var axes = [
        { label: 'seconds since start', size: 40, labelSize: 18, grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' } },
        { label: s.yLabel + (log ? ' (log)' : ''), scale: 'y', size: 56, labelSize: 18, grid: { stroke: '#eef0f3' }, ticks: { stroke: '#d1d5db' } },
      ];
      if (hasY2) axes.push({ label: s.y2Label || '', scale: 'y2', side: 1, size: 50, labelSize: 18, grid: { show: false } });
      var scales = {
        x: { time: false, range: fullRunRange(s) },
        y: log ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.08 : 1]; } },
      };
      if (hasY2) scales.y2 = { range: function (u, min, max) { return [0, max > 0 ? max * 1.15 : 1]; } };
      var height = s.group === 'throughput' ? 280 : 220;
      var opts = {
        width: chartWidth(body),
        height: height,
        scales: scales,
        axes: axes,
        series: [{ label: 't (s)', value: legendValue(function () { return entry.spec.x; }) }].concat(s.series.map(function (x, i) { return seriesOpts(entry, i); })),
        legend: { live: true },
        cursor: { drag: { x: true, y: false } },
        plugins: [overlays(s)],
      };
      if (entry.plot) entry.plot.destroy();
      body.innerHTML = '';
      entry.plot = new uPlot(opts, columns(s, log), body);
      entry.log = log;
      el.dataset.scale = log ? 'log' : 'linear';
      if (plots.indexOf(entry) < 0) plots.push(entry);
    }
    function show() {
      var points = pointsOf(entry.spec);
      el.dataset.points = String(points);
      if (points === 0) {
        if (entry.plot) { entry.plot.destroy(); entry.plot = null; }
        body.innerHTML = '<div class="nodata">no data</div>';
        return false;
      }
      if (logOk && !entry.tools) {
        // One spike flattens a linear latency axis: start on a log scale when the top is far above the typical value.
        entry.log = spikeFlattens(entry.spec);
        var tools = document.createElement('span');
        tools.className = 'chart-tools';
        tools.innerHTML = '<label><input type="checkbox" class="log-toggle"' + (entry.log ? ' checked' : '') + '> log scale</label>';
        el.querySelector('h3').appendChild(tools);
        tools.querySelector('.log-toggle').addEventListener('change', function (e) { build(e.target.checked); });
        entry.tools = true;
      }
      return true;
    }
    entry.update = function (next) {
      var rebuild = !entry.plot || !sameSeries(entry.spec, next);
      // In place: the overlays and the x range read the spec when they draw.
      for (var k in next) entry.spec[k] = next[k];
      if (!show()) return;
      if (rebuild) build(entry.log);
      else entry.plot.setData(columns(entry.spec, entry.log));
    };
    entry.drawn = show();
    if (entry.drawn) build(entry.log);
    return entry;
  }

  window.addEventListener('resize', function () {
    plots.forEach(function (p) { if (p.plot) p.plot.setSize({ width: chartWidth(p.body), height: p.plot.height }); });
  });
  window.PaystormCharts = { draw: drawChart };

  // report.html: its charts' data is inlined once; the live page (src/report/dashboard) draws through PaystormCharts.
  var dataEl = document.getElementById('paystorm-data');
  if (!dataEl) return;
  var data = JSON.parse(dataEl.textContent);
  var rendered = 0;
  data.charts.forEach(function (spec) {
    var el = document.getElementById(spec.id);
    if (!el) return;
    if (drawChart(el, spec).drawn) rendered++;
  });
  document.body.dataset.chartsRendered = String(rendered);
})();
