'use strict';
// report_charts.js: number formatting, device colours and the two Canvas 2D charts (memory timeline,
// roofline). Concatenated before report.js into one <script>; it defines one global, FEC.
const FEC = (() => {
  // 18 distinct hues for accelerators; greys are kept for cpu-like devices and "no device".
  const PALETTE = ['#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd', '#8c564b', '#e377c2', '#17becf',
    '#bcbd22', '#393b79', '#637939', '#8c6d31', '#843c39', '#7b4173', '#3182bd', '#e6550d', '#31a354', '#756bb1'];
  const GREYS = ['#7d8590', '#a4abb5', '#5c636d'];
  const NO_DEVICE = '#c8cdd4';

  function deviceColours(devices) {
    let g = 0;
    let c = 0;
    return devices.map((d) => (/^(cpu|meta)/i.test(String(d && d.name)) ? GREYS[g++ % GREYS.length] : PALETTE[c++ % PALETTE.length]));
  }

  // ---- formatting --------------------------------------------------------------------------------
  const ok = (x) => typeof x === 'number' && Number.isFinite(x);
  const sig3 = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));
  function scaled(x, base, units) {
    if (!ok(x)) return '–';
    let v = Math.abs(x);
    let i = 0;
    while (v >= base && i < units.length - 1) { v /= base; i++; }
    return (x < 0 ? '-' : '') + (i === 0 && Number.isInteger(v) ? String(v) : sig3(v)) + ' ' + units[i];
  }
  const fmtBytes = (b) => scaled(b, 1024, ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']);
  const fmtFlops = (f) => scaled(f, 1000, ['FLOP', 'kFLOP', 'MFLOP', 'GFLOP', 'TFLOP', 'PFLOP', 'EFLOP']);
  const fmtRate = (f) => scaled(f, 1000, ['FLOP/s', 'kFLOP/s', 'MFLOP/s', 'GFLOP/s', 'TFLOP/s', 'PFLOP/s', 'EFLOP/s']);
  const fmtBw = (b) => scaled(b, 1000, ['B/s', 'kB/s', 'MB/s', 'GB/s', 'TB/s', 'PB/s']);
  function fmtTime(s) {
    if (!ok(s)) return '–';
    const a = Math.abs(s);
    if (a === 0) return '0 s';
    if (a < 1e-6) return sig3(s * 1e9) + ' ns';
    if (a < 1e-3) return sig3(s * 1e6) + ' µs';
    if (a < 1) return sig3(s * 1e3) + ' ms';
    return sig3(s) + ' s';
  }
  // Thousands separators by hand: the first toLocaleString call costs ~20 ms of locale setup.
  const fmtInt = (n) => (ok(n) ? String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',') : '–');
  const fmtPct = (f) => (ok(f) ? (f * 100).toFixed(f >= 0.1 ? 0 : 1) + '%' : '–');
  function fmtPlain(v) { // axis labels for arithmetic intensity
    if (v >= 1e3) return scaled(v, 1000, ['', 'k', 'M', 'G', 'T']).replace(/\.0+ |\s/g, '');
    return String(+v.toPrecision(3));
  }

  // ---- canvas plumbing ---------------------------------------------------------------------------
  // Size the backing store to CSS size x devicePixelRatio so lines stay crisp on HiDPI screens.
  function fitCanvas(canvas, height) {
    const dpr = window.devicePixelRatio || 1;
    const w = Math.max(200, canvas.clientWidth || (canvas.parentNode && canvas.parentNode.clientWidth) || 800);
    canvas.style.height = height + 'px';
    const W = Math.round(w * dpr);
    const H = Math.round(height * dpr);
    if (canvas.width !== W) canvas.width = W;
    if (canvas.height !== H) canvas.height = H;
    const ctx = canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, w, height);
    ctx.font = '11px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
    return { ctx, w, h: height };
  }
  function niceStep(range, target) {
    const raw = range / target;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    const f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10) * p;
  }
  // Tooltip lines are set as text, never HTML: node names come from the data.
  function showTip(tip, wrap, x, y, lines) {
    tip.textContent = '';
    lines.forEach((l, k) => { const d = document.createElement('div'); if (!k) d.className = 'fe-tip-title'; d.textContent = l; tip.appendChild(d); });
    tip.hidden = false;
    const W = wrap.clientWidth;
    const left = x + 14 + tip.offsetWidth > W ? Math.max(0, x - 14 - tip.offsetWidth) : x + 14;
    tip.style.left = left + 'px';
    tip.style.top = Math.max(0, y - 10) + 'px';
  }
  function chartShell(wrap, id) {
    const canvas = document.createElement('canvas');
    canvas.id = id;
    canvas.className = 'fe-canvas';
    const tip = document.createElement('div');
    tip.className = 'fe-tip';
    tip.hidden = true;
    const cross = document.createElement('div');
    cross.className = 'fe-cross';
    cross.hidden = true;
    wrap.classList.add('fe-chart');
    wrap.append(canvas, cross, tip);
    return { canvas, tip, cross };
  }
  const mouse = (canvas, e) => { const r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; };

  // ---- memory timeline ---------------------------------------------------------------------------
  // opts: {n, dev (a devices[] entry), colour, timeline ({steps, bytes} or null), capacity, peakName,
  //        zoom (squeeze the static part below an axis break), describe(i) -> [lines], onPick(i)}
  const BANDS = [
    ['parameters', (d) => d.parameter_bytes, '#8fa9c2'],
    ['buffers', (d) => d.buffer_bytes, '#b4c6d7'],
    ['constants + inputs', (d) => (d.constant_bytes || 0) + (d.input_bytes || 0), '#d2dce6'],
    ['KV cache', (d) => d.kv_cache_bytes, '#e2c98f'],
  ];
  function memoryChart(wrap) {
    const { canvas, tip, cross } = chartShell(wrap, 'fe-mem-canvas');
    let o = null;
    let g = null; // geometry of the last draw, for hover
    const actAt = (i) => { // live activation bytes at node i: last step <= i
      const s = o.timeline ? o.timeline.steps : [];
      let lo = 0;
      let hi = s.length - 1;
      let k = -1;
      while (lo <= hi) { const mid = (lo + hi) >> 1; if (s[mid] <= i) { k = mid; lo = mid + 1; } else hi = mid - 1; }
      return k < 0 ? 0 : o.timeline.bytes[k] || 0;
    };
    function draw() {
      if (!o) return;
      const { ctx, w, h } = fitCanvas(canvas, 300);
      const m = { l: 72, r: 16, t: 16, b: 34 };
      const d = o.dev;
      const bands = BANDS.map(([name, f, c]) => [name, Math.max(0, +f(d) || 0), c]);
      const stat = bands.reduce((a, b) => a + b[1], 0);
      const steps = o.timeline ? o.timeline.steps : [];
      const vals = o.timeline ? o.timeline.bytes : [];
      let actMax = 0;
      for (const v of vals) if (v > actMax) actMax = v;
      const peak = Math.max(+d.peak_bytes || 0, stat + actMax);
      const cap = ok(o.capacity) && o.capacity > 0 ? o.capacity : null;
      const n = Math.max(1, o.n);
      const pw = w - m.l - m.r;
      const ph = h - m.t - m.b;
      const X = (i) => m.l + (i / n) * pw;
      // Zoomed: the static part is squeezed into the bottom fifth (past an axis break) so that
      // activations of a few hundred MiB over 100 GiB of weights still show their shape.
      const zoom = !!o.zoom && stat > 0 && peak > stat;
      let Y; let ymax; let sh = 0; let uh = ph;
      if (zoom) {
        ymax = stat + (peak - stat) * 1.12;
        if (cap && cap > peak && cap < ymax) ymax = cap * 1.01;
        sh = Math.round(ph * 0.2); uh = ph - sh - 8;
        Y = (b) => (b <= stat ? m.t + ph - (b / stat) * sh : m.t + uh - ((b - stat) / (ymax - stat)) * uh);
      } else {
        ymax = peak;
        if (cap && cap <= 2 * peak) ymax = Math.max(ymax, cap);
        ymax = ymax > 0 ? ymax * 1.08 : 1;
        Y = (b) => m.t + ph - (b / ymax) * ph;
      }
      g = { m, n, pw, stat };
      // y grid in binary units; in zoom mode the upper ticks count activation bytes above the static part
      const lo = zoom ? stat : 0;
      let unit = 1;
      while (unit * 1024 <= ymax - lo) unit *= 1024;
      const step = niceStep((ymax - lo) / unit, zoom ? 4 : 5) * unit;
      ctx.strokeStyle = '#e6e9ee';
      ctx.fillStyle = '#5b6470';
      ctx.lineWidth = 1;
      ctx.textAlign = 'right';
      ctx.textBaseline = 'middle';
      const tick = (v, label) => {
        const y = Math.round(Y(v)) + 0.5;
        ctx.beginPath(); ctx.moveTo(m.l, y); ctx.lineTo(w - m.r, y); ctx.stroke();
        ctx.fillText(label, m.l - 6, y);
      };
      if (zoom) { tick(0, '0 B'); tick(stat, fmtBytes(stat)); } else tick(0, '0 B');
      for (let v = step; v <= ymax - lo; v += step) tick(lo + v, (zoom ? '+' : '') + fmtBytes(v));
      ctx.textAlign = 'center';
      ctx.textBaseline = 'top';
      const xs = Math.max(1, niceStep(n, Math.max(2, Math.floor(pw / 90))));
      for (let i = 0; i <= n; i += xs) { const x = X(i); ctx.fillText(String(i), x, h - m.b + 6); ctx.fillRect(x, h - m.b, 1, 4); }
      ctx.fillText('node index (program order)', m.l + pw / 2, h - 14);
      // static bands, bottom up
      let base = 0;
      for (const [, v, c] of bands) {
        if (v <= 0) continue;
        ctx.fillStyle = c;
        ctx.fillRect(m.l, Y(base + v), pw, Y(base) - Y(base + v));
        base += v;
      }
      if (zoom) { // axis break: a white gap with zigzag edges above the static part
        const yb = m.t + uh;
        ctx.fillStyle = '#fff';
        ctx.fillRect(m.l - 4, yb, pw + 8, 8);
        ctx.strokeStyle = '#9aa3ad';
        for (const y of [yb, yb + 8]) {
          ctx.beginPath();
          for (let x = m.l - 4, k = 0; x <= m.l + pw + 4; x += 6, k++) ctx.lineTo(x, y + (k % 2 ? 2 : -2));
          ctx.stroke();
        }
        ctx.fillStyle = '#2d3a4a'; ctx.textAlign = 'left'; ctx.textBaseline = 'middle';
        ctx.fillText(`static ${fmtBytes(stat)} (axis broken: activations above)`, m.l + 6, m.t + ph - sh / 2);
      }
      // activations: a step function on top of the static part
      if (steps.length) {
        const top = new Path2D();
        top.moveTo(X(0), Y(stat));
        let cur = 0;
        for (let k = 0; k < steps.length; k++) {
          const x = X(steps[k]);
          top.lineTo(x, Y(stat + cur));
          cur = vals[k] || 0;
          top.lineTo(x, Y(stat + cur));
        }
        top.lineTo(X(n), Y(stat + cur));
        const area = new Path2D(top);
        area.lineTo(X(n), Y(stat));
        area.closePath();
        ctx.globalAlpha = 0.45;
        ctx.fillStyle = o.colour;
        ctx.fill(area);
        ctx.globalAlpha = 1;
        ctx.strokeStyle = o.colour;
        ctx.lineWidth = 1.25;
        ctx.stroke(top);
        ctx.lineWidth = 1;
      }
      else if (peak > stat) { // no timeline: only the activation peak is known
        const y = Math.round(Y(peak)) + 0.5;
        ctx.setLineDash([4, 3]); ctx.strokeStyle = o.colour;
        ctx.beginPath(); ctx.moveTo(m.l, y); ctx.lineTo(w - m.r, y); ctx.stroke(); ctx.setLineDash([]);
      }
      ctx.strokeStyle = '#9aa3ad';
      ctx.strokeRect(m.l + 0.5, m.t + 0.5, pw - 1, ph);
      if (cap) {
        ctx.fillStyle = '#c0392b'; ctx.textBaseline = 'bottom';
        const label = `capacity ${fmtBytes(cap)}: ${fmtBytes(cap - peak)} ${cap >= peak ? 'free' : 'short'} at the peak`;
        if (cap <= ymax) {
          const y = Math.round(Y(cap)) + 0.5;
          ctx.setLineDash([6, 4]); ctx.strokeStyle = '#c0392b';
          ctx.beginPath(); ctx.moveTo(m.l, y); ctx.lineTo(w - m.r, y); ctx.stroke(); ctx.setLineDash([]);
          ctx.textAlign = 'left'; ctx.fillText(label, m.l + 6, y - 2);
        } else { ctx.textAlign = 'right'; ctx.fillText(label + ' (above the chart)', w - m.r - 6, m.t + 16); }
      }
      const ps = d.peak_step;
      if (ok(ps) && ps >= 0 && ps < n) {
        const x = Math.round(X(ps + 0.5)) + 0.5;
        ctx.setLineDash([3, 3]); ctx.strokeStyle = '#222';
        ctx.beginPath(); ctx.moveTo(x, m.t); ctx.lineTo(x, h - m.b); ctx.stroke(); ctx.setLineDash([]);
        const label = `peak ${fmtBytes(peak)} at ${o.peakName}`;
        ctx.font = '600 12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
        const tw = ctx.measureText(label).width;
        const right = x + 6 + tw > w - m.r;
        const ly = Math.max(m.t + 4, Y(peak) - 18);
        ctx.fillStyle = 'rgba(255,255,255,0.85)';
        ctx.fillRect(right ? x - 8 - tw : x + 4, ly - 2, tw + 4, 16);
        ctx.fillStyle = '#111';
        ctx.textAlign = right ? 'right' : 'left';
        ctx.textBaseline = 'top';
        ctx.fillText(label, right ? x - 6 : x + 6, ly);
      }
    }
    function at(e) {
      if (!g) return -1;
      const [mx] = mouse(canvas, e);
      const i = Math.floor(((mx - g.m.l) / g.pw) * g.n);
      return i >= 0 && i < o.n ? i : -1;
    }
    canvas.addEventListener('mousemove', (e) => {
      const i = at(e);
      if (i < 0) { tip.hidden = true; cross.hidden = true; return; }
      const [mx, my] = mouse(canvas, e);
      const act = actAt(i);
      cross.hidden = false;
      cross.style.left = Math.round(g.m.l + ((i + 0.5) / g.n) * g.pw) + 'px';
      cross.style.top = g.m.t + 'px';
      cross.style.height = canvas.clientHeight - g.m.t - g.m.b + 'px';
      showTip(tip, wrap, mx, my, o.describe(i).concat([`activations ${fmtBytes(act)}`, `total ${fmtBytes(g.stat + act)}`]));
    });
    canvas.addEventListener('mouseleave', () => { tip.hidden = true; cross.hidden = true; });
    canvas.addEventListener('click', (e) => { const i = at(e); if (i >= 0 && o.onPick) o.onPick(i); });
    return { canvas, draw, set(opts) { o = opts; draw(); } };
  }

  // ---- roofline ----------------------------------------------------------------------------------
  // opts: {ai, perf (Float64Array), node (Int32Array), colour (per point), roofs: [{names, colours, peak, bw, spec}],
  //        describe(i) -> [lines], onPick(i)}
  function rooflineChart(wrap, o) {
    const { canvas, tip } = chartShell(wrap, 'fe-roof-canvas');
    let px = new Float32Array(0);
    let py = new Float32Array(0);
    function draw() {
      const { ctx, w, h } = fitCanvas(canvas, 380);
      const m = { l: 84, r: 16, t: 16, b: 40 };
      const P = o.ai.length;
      let x0 = Infinity; let x1 = -Infinity; let y0 = Infinity; let y1 = -Infinity;
      for (let k = 0; k < P; k++) {
        x0 = Math.min(x0, o.ai[k]); x1 = Math.max(x1, o.ai[k]); y0 = Math.min(y0, o.perf[k]); y1 = Math.max(y1, o.perf[k]);
      }
      for (const r of o.roofs) { const ridge = r.peak / r.bw; x0 = Math.min(x0, ridge / 10); x1 = Math.max(x1, ridge * 10); y1 = Math.max(y1, r.peak); y0 = Math.min(y0, r.peak / 1e4); }
      if (!(x0 < Infinity)) { x0 = 0.1; x1 = 1e3; y0 = 1e9; y1 = 1e15; }
      const lx0 = Math.floor(Math.log10(x0)); let lx1 = Math.ceil(Math.log10(x1));
      const ly0 = Math.floor(Math.log10(y0)); let ly1 = Math.ceil(Math.log10(y1 * 1.5));
      if (lx1 - lx0 < 2) lx1 = lx0 + 2;
      if (ly1 - ly0 < 2) ly1 = ly0 + 2;
      const pw = w - m.l - m.r;
      const ph = h - m.t - m.b;
      const X = (v) => m.l + ((Math.log10(v) - lx0) / (lx1 - lx0)) * pw;
      const Y = (v) => m.t + ph - ((Math.log10(v) - ly0) / (ly1 - ly0)) * ph;
      ctx.lineWidth = 1;
      ctx.fillStyle = '#5b6470';
      for (let k = lx0; k <= lx1; k++) {
        for (let s = 1; s < 10 && (k < lx1 || s === 1); s++) {
          const x = Math.round(X(s * 10 ** k)) + 0.5;
          ctx.strokeStyle = s === 1 ? '#dfe3e8' : '#f1f3f5';
          ctx.beginPath(); ctx.moveTo(x, m.t); ctx.lineTo(x, m.t + ph); ctx.stroke();
        }
        ctx.textAlign = 'center'; ctx.textBaseline = 'top';
        ctx.fillText(fmtPlain(10 ** k), X(10 ** k), m.t + ph + 6);
      }
      for (let k = ly0; k <= ly1; k++) {
        const y = Math.round(Y(10 ** k)) + 0.5;
        ctx.strokeStyle = '#dfe3e8';
        ctx.beginPath(); ctx.moveTo(m.l, y); ctx.lineTo(m.l + pw, y); ctx.stroke();
        ctx.textAlign = 'right'; ctx.textBaseline = 'middle';
        ctx.fillText(fmtRate(10 ** k), m.l - 6, y);
      }
      ctx.textAlign = 'center'; ctx.textBaseline = 'bottom';
      ctx.fillText('arithmetic intensity (FLOP / byte)', m.l + pw / 2, h - 2);
      ctx.strokeStyle = '#9aa3ad';
      ctx.strokeRect(m.l + 0.5, m.t + 0.5, pw - 1, ph);
      // points, grouped by colour to limit state changes
      px = new Float32Array(P); py = new Float32Array(P);
      const byColour = new Map();
      for (let k = 0; k < P; k++) {
        px[k] = X(o.ai[k]); py[k] = Y(o.perf[k]);
        const c = o.colour[k];
        if (!byColour.has(c)) byColour.set(c, []);
        byColour.get(c).push(k);
      }
      ctx.globalAlpha = 0.6;
      for (const [c, ks] of byColour) { ctx.fillStyle = c; for (const k of ks) ctx.fillRect(px[k] - 2, py[k] - 2, 4, 4); }
      ctx.globalAlpha = 1;
      // roofs: devices sharing a spec share one line, dashed in each device's colour
      ctx.save();
      ctx.beginPath(); ctx.rect(m.l, m.t, pw, ph); ctx.clip();
      ctx.lineWidth = 2.5;
      for (const r of o.roofs) {
        const ridge = r.peak / r.bw;
        const a = 10 ** lx0; const b = 10 ** lx1;
        const line = new Path2D();
        line.moveTo(X(a), Y(Math.min(r.peak, r.bw * a)));
        if (ridge > a && ridge < b) line.lineTo(X(ridge), Y(r.peak));
        line.lineTo(X(b), Y(Math.min(r.peak, r.bw * b)));
        const k = r.colours.length;
        r.colours.forEach((c, j) => {
          ctx.strokeStyle = c;
          ctx.setLineDash(k > 1 ? [8, 8 * (k - 1)] : []);
          ctx.lineDashOffset = -8 * j;
          ctx.stroke(line);
        });
        ctx.setLineDash([]);
        ctx.fillStyle = '#222'; ctx.textAlign = 'right'; ctx.textBaseline = 'bottom';
        ctx.fillText(`${r.names} · ${r.spec || ''} ${fmtRate(r.peak)}, ${fmtBw(r.bw)}`, m.l + pw - 6, Y(r.peak) - 4);
      }
      ctx.restore();
    }
    function nearest(e) {
      const [mx, my] = mouse(canvas, e);
      let best = -1;
      let bd = 64; // within 8 px
      for (let k = 0; k < px.length; k++) {
        const dx = px[k] - mx; const dy = py[k] - my; const d = dx * dx + dy * dy;
        if (d < bd) { bd = d; best = k; }
      }
      return [best, mx, my];
    }
    canvas.addEventListener('mousemove', (e) => {
      const [k, mx, my] = nearest(e);
      if (k < 0) { tip.hidden = true; canvas.style.cursor = ''; return; }
      canvas.style.cursor = 'pointer';
      showTip(tip, wrap, mx, my, o.describe(o.node[k]));
    });
    canvas.addEventListener('mouseleave', () => { tip.hidden = true; });
    canvas.addEventListener('click', (e) => { const [k] = nearest(e); if (k >= 0 && o.onPick) o.onPick(o.node[k]); });
    return { canvas, draw };
  }

  return { PALETTE, NO_DEVICE, deviceColours, fmtBytes, fmtFlops, fmtRate, fmtBw, fmtTime, fmtInt, fmtPct, memoryChart, rooflineChart, ok };
})();
