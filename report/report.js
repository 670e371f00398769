// report.js: the `fakeexport report` viewer. Reads the JSON in #fe-data and renders every section
// synchronously on DOMContentLoaded; with "selftest" in location.hash it then runs the self-test.
// Needs FEC from report_charts.js (concatenated before this file).
(() => {
  const { fmtBytes, fmtFlops, fmtRate, fmtBw, fmtTime, fmtInt, fmtPct, deviceColours, NO_DEVICE, ok, memoryChart, rooflineChart } = FEC;
  const CHUNK = 300; // rows rendered per module body before a "show more" button

  // ---- DOM helper: attributes as text (data is never parsed as HTML) ---------------------------
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const k in attrs) {
        const v = attrs[k];
        if (v == null || v === false) continue;
        if (k === 'class') e.className = v;
        else if (k === 'text') e.textContent = v;
        else if (k === 'style') e.style.cssText = v;
        else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? '' : v);
      }
    }
    for (const c of kids) if (c != null && c !== false) e.append(c);
    return e;
  }
  const arr = (x) => (Array.isArray(x) ? x : []);
  const num = (x) => (ok(x) ? x : 0);
  const plural = (n, w) => `${fmtInt(n)} ${w}${n === 1 ? '' : 's'}`;

  // ---- data ---------------------------------------------------------------------------------------
  let D; let N; let names; let opIx; let kindIx; let mod; let dev; let meta; let srcIx; let flops; let bytes;
  let time; let bound; let transfer; let args; let strings; let devices; let colours;
  let M; let mpath; let mtype; let mparent; let kids; let own; let cnt; let mflops; let mtime; let first; let key; let devCnt;
  let totalTime = 0; let totalFlops = 0; let devTime = []; let nameIndex = null; let users = null; let lowerNames = null;

  function load() {
    const el = document.getElementById('fe-data');
    const text = el ? el.textContent.trim() : '';
    // The bare template (placeholder not yet replaced) shows an empty report rather than failing.
    D = text && !text.startsWith('/*@FE_DATA') ? JSON.parse(text) : {};
    if (!D || typeof D !== 'object') D = {};
    D.verdict = D.verdict || {};
    D.hotspots = D.hotspots || {};
    strings = arr(D.strings);
    devices = arr(D.devices).map((d) => d || {});
    colours = deviceColours(devices);
    const nd = D.nodes || {};
    N = arr(nd.name).length;
    const col = (k, def) => (Array.isArray(nd[k]) && nd[k].length >= N ? nd[k] : new Array(N).fill(def));
    names = col('name', ''); opIx = col('op', -1); kindIx = col('kind', -1); mod = col('mod', 0); dev = col('dev', -1);
    meta = col('meta', ''); srcIx = col('src', -1); flops = col('flops', 0); bytes = col('bytes', 0); time = col('time', 0);
    bound = col('bound', 0); transfer = col('transfer', 0); args = col('args', []);
    const mo = D.modules || {};
    mpath = arr(mo.path).slice(); mtype = arr(mo.type).slice(); mparent = arr(mo.parent).slice();
    if (!mpath.length) { mpath = ['']; mtype = ['']; mparent = [-1]; }
    M = mpath.length;
    // Index 0 is the root; any other bad or missing parent hangs off the root.
    for (let m = 0; m < M; m++) {
      const p = mparent[m];
      mparent[m] = m === 0 ? -1 : Number.isInteger(p) && p >= 0 && p < M && p !== m ? p : 0;
      if (typeof mpath[m] !== 'string') mpath[m] = String(mpath[m] ?? '');
      if (typeof mtype[m] !== 'string') mtype[m] = '';
    }
  }
  const str = (i) => (Number.isInteger(i) && i >= 0 && i < strings.length ? strings[i] : '');
  const validDev = (d) => Number.isInteger(d) && d >= 0 && d < devices.length;
  const devName = (d) => (validDev(d) ? String(devices[d].name) : 'no device');
  const colourOf = (d) => (validDev(d) ? colours[d] : NO_DEVICE);
  const kindOf = (i) => str(kindIx[i]);
  const isPh = (i) => kindOf(i) === 'placeholder';
  function shortOp(i) {
    const o = str(opIx[i]);
    if (!o) return kindOf(i) || '';
    const p = o.split('.');
    const a = p.indexOf('aten') >= 0 ? p.indexOf('aten') : p.indexOf('prims');
    if (a >= 0 && a + 1 < p.length) return p[a + 1];
    return p.length > 1 && /^(default|Tensor|Scalar|int)$/.test(p[p.length - 1]) ? p[p.length - 2] : p[p.length - 1];
  }
  // Last path component; a numeric one keeps its container's name ("layers.3", not "3").
  const leaf = (m) => (m === 0 ? mtype[0] || 'root' : (/(?:^|\.)([^.]+\.\d+|[^.]+)$/.exec(mpath[m]) || [mpath[m], mpath[m]])[1]);
  function nodeIndex(x) { // verdict entries may name a node by index or by name
    if (Number.isInteger(x)) return x >= 0 && x < N ? x : -1;
    if (typeof x !== 'string') return -1;
    if (!nameIndex) { nameIndex = new Map(); for (let i = 0; i < N; i++) nameIndex.set(names[i], i); }
    return nameIndex.has(x) ? nameIndex.get(x) : -1;
  }
  const modText = (x) => (Number.isInteger(x) ? (x >= 0 && x < M ? mpath[x] : '') : String(x ?? ''));

  // Module aggregates in one pass over the nodes, walking each node's ancestor chain: O(N * depth).
  function aggregate() {
    const ND = devices.length + 1; // slot 0: no device
    cnt = new Int32Array(M); mflops = new Float64Array(M); mtime = new Float64Array(M);
    first = new Int32Array(M).fill(-1); key = new Int32Array(M).fill(-1); devCnt = new Int32Array(M * ND);
    own = Array.from({ length: M }, () => []);
    devTime = devices.map((d) => (ok(d.time_s) ? d.time_s : 0));
    const sumDev = new Float64Array(devices.length);
    for (let i = 0; i < N; i++) {
      let m = Number.isInteger(mod[i]) && mod[i] >= 0 && mod[i] < M ? mod[i] : 0;
      mod[i] = m;
      own[m].push(i);
      const f = num(flops[i]); const t = num(time[i]); const d = dev[i];
      const slot = validDev(d) ? d + 1 : 0;
      const ph = isPh(i);
      if (slot) sumDev[d] += t;
      totalTime += t; totalFlops += f;
      for (let k = 0; m >= 0 && k < 256; k++, m = mparent[m]) { // k bounds a cyclic parent table
        cnt[m]++; mflops[m] += f; mtime[m] += t; devCnt[m * ND + slot]++;
        if (first[m] < 0) first[m] = i;
        if (key[m] < 0 && !ph) key[m] = i;
      }
    }
    devTime = devTime.map((t, d) => t || sumDev[d]);
    // Modules are placed by their first computing node: parameter placeholders all come first in
    // program order, so ordering by them would put every module in state-dict order.
    for (let m = 0; m < M; m++) if (key[m] < 0) key[m] = first[m];
    kids = Array.from({ length: M }, () => []);
    for (let m = 1; m < M; m++) if (cnt[m] > 0) kids[mparent[m]].push(m);
    for (const k of kids) k.sort((a, b) => key[a] - key[b]);
  }
  // A module's display items in program order: own nodes as i >= 0, child modules as -(m + 1), and
  // runs of GROUP or more own placeholders folded into one group {g: [node indices]}.
  const GROUP = 6;
  const itemCache = new Map();
  const groups = [];
  function itemsOf(m) {
    if (itemCache.has(m)) return itemCache.get(m);
    const a = own[m]; const c = kids[m]; const flat = [];
    let i = 0; let j = 0;
    while (i < a.length || j < c.length) {
      if (j >= c.length || (i < a.length && a[i] < key[c[j]])) flat.push(a[i++]);
      else flat.push(-(c[j++] + 1));
    }
    const out = [];
    for (let k = 0; k < flat.length;) {
      let e = k;
      while (e < flat.length && flat[e] >= 0 && isPh(flat[e])) e++;
      if (e - k >= GROUP) { const g = { g: flat.slice(k, e), id: groups.length, el: null, body: null }; groups.push(g); out.push(g); k = e; } else if (e > k) { while (k < e) out.push(flat[k++]); } else out.push(flat[k++]);
    }
    itemCache.set(m, out);
    return out;
  }
  function chainTo(m) { const p = []; for (let k = 0; m >= 0 && k < 256; k++, m = mparent[m]) p.push(m); return p.reverse(); }

  // ---- header, verdict ----------------------------------------------------------------------------
  function renderHeader() {
    const t = D.title || 'fakeexport report';
    document.title = `${t} · fakeexport report`;
    document.getElementById('fe-title').textContent = t;
    document.getElementById('fe-footer').textContent = `${D.generator || 'fakeexport report'} · data version ${D.version ?? '?'} · ${plural(N, 'node')} · ${plural(M, 'module')} · ${plural(devices.length, 'device')}`;
  }
  function chip(d) { return h('span', { class: 'fe-chip', style: `background:${colourOf(d)}`, title: devName(d) }); }
  function devChipByName(name) { const d = devices.findIndex((x) => x.name === name); return h('span', { class: 'fe-devname' }, chip(d), String(name ?? '–')); }
  function nodeLink(x) {
    const i = nodeIndex(x);
    const label = i >= 0 ? names[i] : String(x ?? '–');
    return i >= 0 ? h('a', { class: 'fe-jump', href: '#graph', 'data-jump': i, text: label }) : h('span', { text: label });
  }
  function table(cols, rows, cls) {
    return h('div', { class: 'fe-tablewrap' }, h('table', { class: 'fe-table ' + (cls || '') },
      h('thead', null, h('tr', null, ...cols.map((c) => h('th', { text: c })))),
      h('tbody', null, ...rows)));
  }
  const td = (x, cls) => h('td', cls ? { class: cls } : null, x instanceof Node ? x : String(x ?? '–'));
  function card(title, value, status, ...extra) {
    return h('div', { class: `fe-card fe-${status}` }, h('div', { class: 'fe-card-title', text: title }), h('div', { class: 'fe-card-value', text: value }), ...extra);
  }
  function collapsible(summary, body, open) { const d = h('details', { class: 'fe-collapse' }, h('summary', { text: summary }), body); d.open = open; return d; }

  function renderVerdict(root) {
    const v = D.verdict;
    const sites = arr(v.device_sites); const miss = arr(v.missing_kernels); const fits = arr(v.fits);
    const no = fits.filter((f) => f && f.fits === false); const unk = fits.filter((f) => f && f.fits !== true && f.fits !== false);
    const exports = v.exports !== false;
    const fitText = !fits.length ? 'fit unknown' : no.length ? `does not fit on ${no.map((f) => f.device).join(', ')}`
      : unk.length === fits.length ? 'fit unknown' : unk.length ? `fits where known (${unk.length} unknown)` : 'fits';
    const bad = !exports || no.length || sites.length || miss.length;
    const status = bad ? 'bad' : unk.length || !fits.length ? 'warn' : 'good';
    const nd = devices.length;
    const head = !exports ? 'Does not export'
      : `Runs on ${nd ? plural(nd, 'device') : 'no known device'}: ${fitText}, ${plural(sites.length, 'device problem')}, ${plural(miss.length, 'missing kernel')}`;
    root.append(h('div', { class: `fe-headline fe-${status}`, id: 'fe-headline' }, h('span', { class: 'fe-dot' }), head));

    const fitList = h('div', { class: 'fe-fits' }, ...fits.map((f) => {
      const st = f.fits === true ? 'good' : f.fits === false ? 'bad' : 'unknown';
      const frac = ok(f.capacity) && f.capacity > 0 ? Math.min(1, num(f.required) / f.capacity) : 1;
      return h('div', { class: `fe-fit fe-${st}`, title: `${f.device}: ${fmtBytes(f.required)} required of ${ok(f.capacity) ? fmtBytes(f.capacity) : 'unknown capacity'}` },
        devChipByName(f.device), h('span', { class: 'fe-fitbar' }, h('i', { style: `width:${(frac * 100).toFixed(1)}%` })),
        h('span', { class: 'fe-fittext', text: `${fmtBytes(f.required)} / ${ok(f.capacity) ? fmtBytes(f.capacity) : '?'}` }));
    }));
    const targets = arr(v.targets);
    root.append(h('div', { class: 'fe-cards' },
      card('Export', exports ? (v.verifies === false ? 'yes, does not verify' : 'yes') : 'no',
        exports && v.verifies !== false ? 'good' : 'bad',
        h('div', { class: 'fe-card-sub', text: `${fmtInt(v.nodes ?? N)} nodes in the top graph` +
          (v.verifies === false ? '; recorded metadata differ from what their ops compute (fakeexport check)'
            : v.verifies === true ? `; every node's metadata re-derived${v.unverified ? ` except ${plural(v.unverified, 'opaque node')}` : ''}` : '') })),
      card('Device lint', sites.length ? plural(sites.length, 'site') : 'none', sites.length ? 'bad' : 'good',
        h('div', { class: 'fe-card-sub', text: targets.length ? `checked against ${targets.join(', ')}` : 'no targets checked' })),
      card('Kernels', miss.length ? `${fmtInt(miss.length)} missing` : 'all present', miss.length ? 'bad' : 'good',
        h('div', { class: 'fe-card-sub', text: miss.length ? `${miss.filter((k) => k && k.decomposes).length} of them decompose` : 'every node has a kernel on its backend' })),
      card('Memory', fitText, (no.length ? 'bad' : unk.length || !fits.length ? 'warn' : 'good') + (fits.length > 1 ? ' fe-wide' : ''), fitList),
      card('Latency', ok(D.latency_s) ? fmtTime(D.latency_s) : 'unknown', ok(D.latency_s) ? 'info' : 'warn',
        h('div', { class: 'fe-card-sub', text: `transfers ${fmtBytes(num(D.transfer_bytes))} in ${fmtTime(num(D.transfer_s))}` }))));

    if (sites.length) {
      const rows = sites.map((s) => {
        const i = nodeIndex(s.node);
        return h('tr', null, td(nodeLink(s.node)), td(i >= 0 ? shortOp(i) : s.kind, 'fe-mono'), td(devChipByName(s.target)), td(devChipByName(s.device)),
          td(s.kind), td(typeof s.source === 'number' ? str(s.source) : s.source, 'fe-src'), td(modText(s.module), 'fe-mono'), td(s.fix));
      });
      root.append(collapsible(`Device lint: ${plural(sites.length, 'site')} that pin a device`, table(['node', 'op', 'target', 'pins', 'kind', 'source', 'module', 'fix'], rows), sites.length <= 20));
    }
    if (miss.length) {
      const rows = miss.map((k) => { const i = nodeIndex(k.node); return h('tr', null, td(nodeLink(k.node)), td(i >= 0 ? shortOp(i) : '–', 'fe-mono'), td(devChipByName(k.target)), td(k.backend), td(devChipByName(k.device)), td(k.decomposes ? 'yes' : 'no')); });
      root.append(collapsible(`Missing kernels: ${fmtInt(miss.length)}`, table(['node', 'op', 'target', 'backend', 'device', 'decomposes'], rows), miss.length <= 20));
    }
  }

  function renderDevices(root) {
    if (!devices.length) { root.append(h('p', { class: 'fe-note', text: 'No devices in this program.' })); return; }
    root.append(h('div', { class: 'fe-legend' }, ...devices.map((d, k) => h('span', { class: 'fe-legend-item' }, chip(k), String(d.name)))));
    const rows = devices.map((d, k) => h('tr', null, td(devChipByName(d.name)), td(d.spec || 'no spec'), td(fmtRate(d.peak_flops)), td(fmtBw(d.bandwidth)),
      td(fmtBytes(d.parameter_bytes), 'fe-num'), td(fmtBytes(num(d.buffer_bytes) + num(d.constant_bytes) + num(d.input_bytes)), 'fe-num'), td(fmtBytes(d.kv_cache_bytes), 'fe-num'),
      td(fmtBytes(d.activation_peak_bytes), 'fe-num'), td(fmtBytes(d.peak_bytes), 'fe-num'), td(fmtFlops(d.flops), 'fe-num'), td(fmtTime(ok(d.time_s) ? d.time_s : devTime[k] || null), 'fe-num'), td(d.bound || '–')));
    root.append(table(['device', 'spec', 'peak', 'bandwidth', 'parameters', 'buffers + consts + inputs', 'KV cache', 'activation peak', 'peak', 'FLOPs', 'time', 'bound'], rows));
  }

  // ---- graph by module hierarchy: DOM built lazily, one module body at a time -------------------
  let flow; const boxOf = []; const bodyOf = []; const doneOf = []; const rowOf = []; let selected = -1;
  const shareOf = (m) => (totalTime > 0 ? mtime[m] / totalTime : totalFlops > 0 ? mflops[m] / totalFlops : null);
  function moduleBox(m) {
    const ND = devices.length + 1;
    const stripe = h('span', { class: 'fe-stripe' });
    const on = [];
    for (let s = 0; s < ND; s++) {
      const c = devCnt[m * ND + s];
      if (c) { stripe.append(h('i', { style: `flex-grow:${c};background:${colourOf(s - 1)}` })); if (s) on.push(devName(s - 1)); }
    }
    const share = shareOf(m);
    const stats = `${plural(cnt[m], 'node')} · ${fmtFlops(mflops[m])}${totalTime > 0 ? ' · ' + fmtTime(mtime[m]) : ''}`;
    const head = h('div', { class: 'fe-mhead', tabindex: 0, role: 'button', 'aria-expanded': 'false', title: `${mpath[m] || '(root)'}\n${on.join(', ')}` },
      h('span', { class: 'fe-twisty' }), h('span', { class: 'fe-mname', text: leaf(m) }),
      m ? h('span', { class: 'fe-mtype', text: mtype[m] }) : null,
      on.length > 1 ? h('span', { class: 'fe-mdevs', text: on.length > 3 ? `${on.length} devices` : on.join(', ') }) : null,
      h('span', { class: 'fe-mstats', text: stats }),
      share == null ? null : h('span', { class: 'fe-share', title: `${fmtPct(share)} of the total ${totalTime > 0 ? 'time' : 'FLOPs'}` }, h('i', { style: `width:${(share * 100).toFixed(2)}%` })),
      share == null ? null : h('span', { class: 'fe-sharetext', text: fmtPct(share) }));
    const box = h('div', { class: 'fe-module', 'data-path': mpath[m], 'data-m': m }, stripe, head);
    boxOf[m] = box;
    return box;
  }
  function nodeRow(i) {
    const tr = transfer[i];
    const k = kindOf(i);
    const row = h('div', { class: `fe-node${tr > 0 ? ' fe-transfer' : ''}${k === 'placeholder' || k === 'output' ? ' fe-ph' : ''}`, 'data-index': i, tabindex: -1 },
      chip(dev[i]), h('span', { class: 'fe-nname', text: names[i] }), h('span', { class: 'fe-nop', text: shortOp(i) }),
      tr > 0 ? h('span', { class: 'fe-xfer', text: `${devName(tr - 1)} → ${devName(dev[i])}` }) : null,
      h('span', { class: 'fe-nmeta', text: meta[i] || '' }), h('span', { class: 'fe-ntime', text: time[i] > 0 ? fmtTime(time[i]) : '' }));
    if (i === selected) row.classList.add('fe-sel');
    rowOf[i] = row;
    return row;
  }
  function renderMore(m, upto) {
    const items = itemsOf(m); const body = bodyOf[m];
    const more = body.lastElementChild;
    if (more && more.classList.contains('fe-more')) more.remove();
    const end = Math.min(items.length, Math.max(upto, doneOf[m] + CHUNK));
    const frag = document.createDocumentFragment();
    for (let k = doneOf[m]; k < end; k++) { const it = items[k]; frag.append(typeof it === 'object' ? groupRow(it) : it >= 0 ? nodeRow(it) : moduleBox(-it - 1)); }
    doneOf[m] = end;
    if (end < items.length) frag.append(h('button', { class: 'fe-more', 'data-m': m, text: `Show ${fmtInt(items.length - end)} more` }));
    body.append(frag);
  }
  function groupRow(g) {
    const a = g.g;
    const ds = [...new Set(a.map((i) => dev[i]))];
    g.el = h('div', { class: 'fe-group', 'data-g': g.id },
      h('div', { class: 'fe-ghead', tabindex: 0, role: 'button', 'aria-expanded': 'false' }, h('span', { class: 'fe-twisty' }), ...ds.slice(0, 8).map(chip),
        h('span', { class: 'fe-gname', text: `${fmtInt(a.length)} placeholders` }), h('span', { class: 'fe-muted fe-gspan', text: `${names[a[0]]} … ${names[a[a.length - 1]]}` })));
    return g.el;
  }
  function setGroupOpen(g, open) {
    if (!g.el) return;
    if (open && !g.body) { g.body = h('div', { class: 'fe-gbody' }, ...g.g.map(nodeRow)); g.el.append(g.body); }
    g.el.classList.toggle('fe-open', open);
    g.el.firstChild.setAttribute('aria-expanded', String(open));
    if (g.body) g.body.hidden = !open;
  }
  function setOpen(m, open) {
    const box = boxOf[m];
    if (!box) return;
    if (open && !bodyOf[m]) { bodyOf[m] = h('div', { class: 'fe-mbody' }); doneOf[m] = 0; box.append(bodyOf[m]); renderMore(m, CHUNK); }
    box.classList.toggle('fe-open', open);
    box.children[1].setAttribute('aria-expanded', String(open));
    if (bodyOf[m]) bodyOf[m].hidden = !open;
  }
  // Make the box of module m exist (opening its ancestors); open m itself too when asked.
  function revealModule(m, openSelf) {
    const chain = chainTo(m);
    for (let j = 0; j < chain.length; j++) {
      const a = chain[j];
      if (j > 0) ensureItem(chain[j - 1], -(a + 1));
      if (j < chain.length - 1 || openSelf) setOpen(a, true);
    }
    return boxOf[m];
  }
  function ensureItem(m, item) {
    if (!bodyOf[m]) setOpen(m, true);
    const items = itemsOf(m);
    const k = items.findIndex((it) => it === item || (typeof it === 'object' && it.g.includes(item)));
    if (k >= doneOf[m]) renderMore(m, k + 1);
    if (k >= 0 && typeof items[k] === 'object') setGroupOpen(items[k], true);
  }
  function revealNode(i, scroll) {
    if (i < 0 || i >= N) return;
    revealModule(mod[i], true);
    ensureItem(mod[i], i);
    selectNode(i);
    if (scroll && rowOf[i]) rowOf[i].scrollIntoView({ block: 'center' });
  }
  function flash(el) { el.classList.remove('fe-flash'); void el.offsetWidth; el.classList.add('fe-flash'); }

  function renderGraph(root) {
    const search = h('input', { id: 'fe-search', type: 'search', placeholder: 'Find a node or module (Enter: next)', autocomplete: 'off', spellcheck: 'false' });
    const count = h('span', { id: 'fe-search-count', class: 'fe-muted' });
    root.append(h('div', { class: 'fe-toolbar' },
      h('button', { id: 'fe-expand-all', text: 'Expand all', onclick: expandAll }),
      h('button', { id: 'fe-collapse-all', text: 'Collapse all', onclick: collapseAll }),
      search, count,
      h('span', { class: 'fe-muted fe-hint', text: totalTime > 0 ? 'bar: share of total time' : totalFlops > 0 ? 'bar: share of total FLOPs (no times)' : '' })));
    flow = h('div', { id: 'fe-flow', class: 'fe-flow' });
    root.append(flow);
    flow.append(moduleBox(0));
    setOpen(0, true);
    // Open the wrapper that holds most of the program (a decoder's "model") so its blocks show.
    for (const c of kids[0]) if (cnt[c] * 2 > N && kids[c].length) setOpen(c, true);

    flow.addEventListener('click', (e) => {
      const t = e.target;
      const more = t.closest('.fe-more');
      if (more) { renderMore(+more.dataset.m, 0); return; }
      const gh = t.closest('.fe-ghead');
      if (gh) { const g = groups[+gh.parentNode.dataset.g]; setGroupOpen(g, !g.el.classList.contains('fe-open')); return; }
      const head = t.closest('.fe-mhead');
      if (head) { const m = +head.parentNode.dataset.m; setOpen(m, !head.parentNode.classList.contains('fe-open')); return; }
      const row = t.closest('.fe-node');
      if (row) selectNode(+row.dataset.index);
    });
    flow.addEventListener('keydown', (e) => {
      if (e.key !== 'Enter' && e.key !== ' ') return;
      const t = e.target.closest('.fe-mhead, .fe-ghead, .fe-node');
      if (t) { e.preventDefault(); t.click(); }
    });

    let hits = []; let pos = -1; let lastQ = null; let timer = 0;
    function find(step) {
      const q = search.value.trim().toLowerCase();
      if (!q) { count.textContent = ''; return; }
      if (q !== lastQ) {
        lastQ = q; pos = -1; hits = [];
        for (let m = 1; m < M; m++) if (cnt[m] && mpath[m].toLowerCase().includes(q)) hits.push(-(m + 1));
        if (!lowerNames) lowerNames = names.map((s) => String(s).toLowerCase());
        for (let i = 0; i < N; i++) if (lowerNames[i].includes(q)) hits.push(i);
      }
      if (!hits.length) { count.textContent = 'no match'; return; }
      pos = (pos + step + hits.length) % hits.length;
      count.textContent = `${fmtInt(pos + 1)} / ${fmtInt(hits.length)}`;
      const x = hits[pos];
      if (x >= 0) { revealNode(x, true); flash(rowOf[x]); } else {
        const box = revealModule(-x - 1, false);
        box.scrollIntoView({ block: 'center' });
        flash(box.children[1]);
      }
    }
    search.addEventListener('keydown', (e) => { if (e.key === 'Enter') { clearTimeout(timer); find(e.shiftKey ? -1 : 1); } });
    search.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => { if (search.value.trim().length >= 2) find(1); else count.textContent = ''; }, 300); });
  }
  function expandAll() {
    const seen = new Uint8Array(M); const stack = [0];
    while (stack.length) {
      const m = stack.pop();
      if (seen[m]) continue;
      seen[m] = 1;
      setOpen(m, true);
      if (doneOf[m] < itemsOf(m).length) renderMore(m, Infinity);
      for (const it of itemsOf(m)) if (typeof it === 'object') setGroupOpen(it, true);
      for (const c of kids[m]) stack.push(c);
    }
  }
  function collapseAll() {
    for (let m = 0; m < M; m++) if (boxOf[m]) setOpen(m, m === 0);
    for (const g of groups) setGroupOpen(g, false);
  }

  // ---- details panel ------------------------------------------------------------------------------
  function usersOf(i) {
    if (!users) {
      users = Array.from({ length: N }, () => null);
      for (let j = 0; j < N; j++) for (const a of arr(args[j])) if (Number.isInteger(a) && a >= 0 && a < N) (users[a] || (users[a] = [])).push(j);
    }
    return users[i] || [];
  }
  function selectNode(i) {
    if (selected >= 0 && rowOf[selected]) rowOf[selected].classList.remove('fe-sel');
    selected = i;
    if (rowOf[i]) rowOf[i].classList.add('fe-sel');
    const p = document.getElementById('fe-details');
    p.textContent = '';
    const jumps = (list) => (list.length ? h('div', { class: 'fe-jumps' }, ...list.slice(0, 200).map((j) => nodeLink(j)), list.length > 200 ? ` … ${list.length - 200} more` : null) : h('span', { class: 'fe-muted', text: 'none' }));
    const ins = arr(args[i]).filter((a) => Number.isInteger(a) && a >= 0 && a < N);
    const f = num(flops[i]); const b = num(bytes[i]); const t = num(time[i]);
    const rows = [
      ['op', str(opIx[i]) || '–'], ['kind', kindOf(i) || '–'], ['device', h('span', null, chip(dev[i]), devName(dev[i]))],
      transfer[i] > 0 ? ['transfer', `${devName(transfer[i] - 1)} → ${devName(dev[i])}`] : null,
      ['meta', meta[i] || '–'], ['inputs', jumps(ins)], ['users', jumps(usersOf(i))],
      ['module', h('a', { class: 'fe-jump-mod', href: '#graph', 'data-mod': mod[i], text: mpath[mod[i]] || '(root)' })],
      ['source', str(srcIx[i]) || '–'], ['FLOPs', f ? `${fmtFlops(f)} (${fmtInt(f)})` : '0'], ['bytes', b ? `${fmtBytes(b)} (${fmtInt(b)})` : '0'],
      ['time', t > 0 ? fmtTime(t) : 'unknown'], ['bound', ['none', 'compute', 'memory'][bound[i]] || '–'],
      f > 0 && b > 0 ? ['intensity', `${(f / b).toPrecision(3)} FLOP/byte`] : null,
      f > 0 && t > 0 ? ['attained', fmtRate(f / t)] : null, ['index', `#${i}`],
    ].filter(Boolean);
    p.append(h('div', { class: 'fe-dhead' }, chip(dev[i]), h('span', { class: 'fe-dname', text: names[i] }),
      h('button', { class: 'fe-close', title: 'Close (Esc)', 'aria-label': 'Close', text: '×', onclick: closeDetails })),
    h('table', { class: 'fe-dtable' }, h('tbody', null, ...rows.map(([k, v]) => h('tr', null, h('th', { text: k }), h('td', { class: k === 'source' || k === 'meta' || k === 'op' ? 'fe-mono' : null }, v))))));
    p.hidden = false;
    document.body.classList.add('fe-details-open');
  }
  function closeDetails() {
    document.getElementById('fe-details').hidden = true;
    document.body.classList.remove('fe-details-open');
  }
  // Any link with data-jump (tables, details) reveals the node in the graph.
  function onJump(e) {
    const a = e.target.closest('[data-jump], [data-mod], tr[data-row]');
    if (!a) return;
    e.preventDefault();
    if (a.dataset.mod != null) { const box = revealModule(+a.dataset.mod, true); box.scrollIntoView({ block: 'center' }); flash(box.children[1]); return; }
    const i = +(a.dataset.jump ?? a.dataset.row);
    revealNode(i, true);
    if (rowOf[i]) flash(rowOf[i]);
  }

  // ---- memory and roofline ------------------------------------------------------------------------
  const charts = [];
  const describe = (i) => [`#${i} ${names[i]}`, `${shortOp(i)} · ${devName(dev[i])}${meta[i] ? ' · ' + meta[i] : ''}`, mpath[mod[i]] || '(root)',
    ...(time[i] > 0 ? [`${fmtTime(time[i])} · ${fmtFlops(flops[i])} · ${fmtBytes(bytes[i])}`] : [])];
  function renderMemory(root) {
    if (!devices.length) { root.append(h('p', { class: 'fe-note', text: 'No devices, so no memory timeline.' })); return; }
    const tl = new Map(arr(D.timeline).filter((t) => t && validDev(t.device)).map((t) => [t.device, { steps: arr(t.steps), bytes: arr(t.bytes) }]));
    const fits = new Map(arr(D.verdict.fits).filter(Boolean).map((f) => [f.device, f]));
    const picker = h('div', { class: 'fe-picker', id: 'fe-mem-picker', role: 'tablist' });
    const summary = h('div', { class: 'fe-memsum' });
    const legend = h('div', { class: 'fe-legend fe-small' });
    const wrap = h('div', { class: 'fe-chartwrap' });
    // Zoom is automatic per device (activations small next to the weights) until the user picks.
    let zoomUser = null; let cur = 0;
    const zoomBox = h('input', { type: 'checkbox', id: 'fe-mem-zoom' });
    zoomBox.addEventListener('change', () => { zoomUser = zoomBox.checked; show(cur); });
    root.append(h('div', { class: 'fe-memtop' }, picker, h('label', { class: 'fe-zoom' }, zoomBox, 'zoom on activations')), summary, wrap, legend);
    const chart = memoryChart(wrap);
    charts.push(chart);
    function show(k) {
      cur = k;
      for (const b of picker.children) b.classList.toggle('fe-on', +b.dataset.d === k);
      const d = devices[k]; const t = tl.get(k) || null; const f = fits.get(d.name);
      const ps = Number.isInteger(d.peak_step) && d.peak_step >= 0 && d.peak_step < N ? d.peak_step : -1;
      summary.textContent = '';
      summary.append(...[chip(k), h('b', { text: String(d.name) }), ` peak ${fmtBytes(d.peak_bytes)} = parameters ${fmtBytes(num(d.parameter_bytes))} + buffers ${fmtBytes(num(d.buffer_bytes))} + constants and inputs ${fmtBytes(num(d.constant_bytes) + num(d.input_bytes))} + KV cache ${fmtBytes(num(d.kv_cache_bytes))} + activations ${fmtBytes(num(d.activation_peak_bytes))}`,
        ps >= 0 ? h('span', null, ' at ', nodeLink(ps)) : null, t ? null : h('span', { class: 'fe-muted', text: ' · no activation timeline for this device' })].filter(Boolean));
      legend.textContent = '';
      for (const [n, c] of [['parameters', '#8fa9c2'], ['buffers', '#b4c6d7'], ['constants + inputs', '#d2dce6'], ['KV cache', '#e2c98f'], ['activations', colours[k]]]) legend.append(h('span', { class: 'fe-legend-item' }, h('span', { class: 'fe-swatch', style: `background:${c}` }), n));
      const stat = num(d.parameter_bytes) + num(d.buffer_bytes) + num(d.constant_bytes) + num(d.input_bytes) + num(d.kv_cache_bytes);
      const act = t ? Math.max(0, ...t.bytes.filter(ok)) : 0;
      zoomBox.checked = zoomUser ?? (act > 0 && act < 0.25 * stat);
      chart.set({ n: N, dev: d, colour: colours[k], timeline: t, zoom: zoomBox.checked, capacity: f ? f.capacity : null, peakName: ps >= 0 ? names[ps] : '', describe, onPick: (i) => revealNode(i, true) });
    }
    devices.forEach((d, k) => picker.append(h('button', { class: 'fe-pick', 'data-d': k, role: 'tab', onclick: () => show(k) }, chip(k), String(d.name))));
    show(0);
  }
  function renderRoofline(root) {
    const spec = devices.map((d, k) => [d, k]).filter(([d]) => ok(d.peak_flops) && d.peak_flops > 0 && ok(d.bandwidth) && d.bandwidth > 0);
    if (!spec.length) { root.append(h('p', { class: 'fe-note', id: 'fe-roof-note', text: 'No device has a hardware spec (peak FLOP/s and bandwidth), so there is no roofline.' })); return; }
    const groups = new Map(); // devices with the same roof share one line
    for (const [d, k] of spec) { const key = `${d.peak_flops}/${d.bandwidth}`; if (!groups.has(key)) groups.set(key, { names: [], colours: [], peak: d.peak_flops, bw: d.bandwidth, spec: d.spec }); groups.get(key).names.push(d.name); groups.get(key).colours.push(colours[k]); }
    const roofs = [...groups.values()].map((g) => Object.assign(g, { names: g.names.length > 3 ? `${g.names[0]} … ${g.names[g.names.length - 1]}` : g.names.join(', ') }));
    const pts = [];
    for (let i = 0; i < N; i++) if (flops[i] > 0 && time[i] > 0 && bytes[i] > 0) pts.push(i);
    const o = { ai: new Float64Array(pts.length), perf: new Float64Array(pts.length), node: Int32Array.from(pts), colour: pts.map((i) => colourOf(dev[i])), roofs, describe: (i) => describe(i).concat([`${(flops[i] / bytes[i]).toPrecision(3)} FLOP/byte · ${fmtRate(flops[i] / time[i])}`]), onPick: (i) => revealNode(i, true) };
    pts.forEach((i, k) => { o.ai[k] = flops[i] / bytes[i]; o.perf[k] = flops[i] / time[i]; });
    root.append(h('p', { class: 'fe-muted', text: `${plural(pts.length, 'node')} with FLOPs, bytes and a time; y: attained FLOP/s = FLOPs / time. Click a point to find it in the graph.` }));
    const wrap = h('div', { class: 'fe-chartwrap' });
    root.append(wrap);
    charts.push(rooflineChart(wrap, o));
    charts[charts.length - 1].draw();
  }

  // ---- hotspots, assumptions ----------------------------------------------------------------------
  function renderHotspots(root) {
    const hot = arr(D.hotspots.time).filter((i) => Number.isInteger(i) && i >= 0 && i < N);
    root.append(h('h3', { text: 'Most expensive nodes' }));
    if (!hot.length) root.append(h('p', { class: 'fe-note', text: 'No timed nodes.' }));
    else {
      const rows = hot.map((i, k) => {
        const share = validDev(dev[i]) && devTime[dev[i]] > 0 ? time[i] / devTime[dev[i]] : null;
        return h('tr', { class: 'fe-rowlink', 'data-row': i, title: 'Show in the graph' }, td(k + 1, 'fe-num'), td(names[i], 'fe-mono'), td(shortOp(i), 'fe-mono'), td(mpath[mod[i]] || '(root)', 'fe-mono fe-wrap'),
          td(h('span', { class: 'fe-devname' }, chip(dev[i]), devName(dev[i]))), td(fmtTime(time[i]), 'fe-num'),
          td(h('span', { class: 'fe-sharecell' }, h('span', { class: 'fe-share' }, h('i', { style: `width:${((share || 0) * 100).toFixed(1)}%` })), fmtPct(share)), 'fe-num'),
          td(fmtFlops(flops[i]), 'fe-num'), td(fmtBytes(bytes[i]), 'fe-num'), td(['–', 'compute', 'memory'][bound[i]] || '–'));
      });
      root.append(table(['#', 'node', 'op', 'module', 'device', 'time', 'share of device', 'FLOPs', 'bytes', 'bound'], rows, 'fe-hot'));
    }
    const mem = arr(D.hotspots.memory).filter((x) => x && validDev(x.device));
    root.append(h('h3', { text: 'Largest tensors live at each device\'s memory peak' }));
    if (!mem.length) { root.append(h('p', { class: 'fe-note', text: 'No memory hotspots.' })); return; }
    root.append(h('div', { class: 'fe-memgrid' }, ...mem.map((x) => {
      const d = devices[x.device];
      return h('div', { class: 'fe-memcard' }, h('div', { class: 'fe-memcard-title' }, chip(x.device), h('b', { text: String(d.name) }), ` peak ${fmtBytes(d.peak_bytes)}`),
        table(['tensor', 'meta', 'bytes', 'module'], arr(x.tensors).map((t) => h('tr', null, td(nodeLink(t.node)), td(t.meta || (nodeIndex(t.node) >= 0 ? meta[nodeIndex(t.node)] : ''), 'fe-mono'), td(fmtBytes(t.bytes), 'fe-num'), td(modText(t.module), 'fe-mono fe-wrap')))));
    })));
  }
  function renderAssumptions(root) {
    const a = arr(D.assumptions);
    root.append(a.length ? h('ul', { class: 'fe-assume' }, ...a.map((s) => h('li', { text: String(s) }))) : h('p', { class: 'fe-note', text: 'None recorded.' }));
  }

  // ---- self-test (synchronous; see report.html for the fallback when this never runs) ----------
  function pickTestModule() {
    // Among the first 20 collapsed modules that own nodes (display order), the one owning the most.
    const cand = []; const stack = [0]; const seen = new Uint8Array(M);
    while (stack.length && cand.length < 20) {
      const m = stack.pop();
      if (seen[m]) continue;
      seen[m] = 1;
      if (m && !(boxOf[m] && boxOf[m].classList.contains('fe-open')) && own[m].length) cand.push(m);
      for (let k = kids[m].length - 1; k >= 0; k--) stack.push(kids[m][k]);
    }
    let best = -1;
    for (const m of cand) if (best < 0 || own[m].length > own[best].length) best = m;
    if (best < 0) for (let m = 1; m < M; m++) if (cnt[m] && !(boxOf[m] && boxOf[m].classList.contains('fe-open'))) { best = m; break; }
    return best;
  }
  function selftest(interactive) {
    const res = { interactive_ms: +interactive.toFixed(1), expanded_module: null, expanded_nodes: 0, expand_ms: null, details_ok: false, charts_ok: false, modules_rendered: 0, nodes_total: N, errors: null };
    try {
      const m = pickTestModule();
      if (m > 0) {
        const head = revealModule(m, false).querySelector(':scope > .fe-mhead');
        const t0 = performance.now();
        head.dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
        res.expand_ms = +(performance.now() - t0).toFixed(2);
        res.expanded_module = mpath[m];
        const rows = boxOf[m].querySelectorAll('.fe-node');
        res.expanded_nodes = rows.length;
        if (rows.length) {
          rows[0].dispatchEvent(new MouseEvent('click', { bubbles: true, cancelable: true, view: window }));
          const dn = document.querySelector('#fe-details .fe-dname');
          res.details_ok = !document.getElementById('fe-details').hidden && !!dn && dn.textContent === names[+rows[0].dataset.index];
        }
      }
      // A chart counts when its data exists: the memory canvas needs a device, the roofline a spec.
      const sized = (c) => !!c && c.width > 0 && c.clientWidth > 0;
      const memOk = devices.length ? sized(document.getElementById('fe-mem-canvas')) : true;
      const roofOk = document.getElementById('fe-roof-note') ? true : sized(document.getElementById('fe-roof-canvas'));
      res.charts_ok = memOk && roofOk;
    } catch (e) {
      window.__feErrors.push('selftest: ' + (e && e.stack ? e.stack : e));
    }
    res.modules_rendered = document.querySelectorAll('.fe-module').length;
    res.errors = (window.__feErrors || []).slice();
    const pre = h('pre', { id: 'fe-selftest', text: JSON.stringify(res) });
    document.body.append(pre);
  }

  // ---- main ---------------------------------------------------------------------------------------
  function main() {
    if (!window.__feErrors) window.__feErrors = [];
    load();
    aggregate();
    renderHeader();
    const sec = (id) => document.getElementById(id);
    renderVerdict(sec('fe-verdict'));
    renderDevices(sec('fe-devices'));
    renderGraph(sec('fe-graph'));
    renderMemory(sec('fe-memory'));
    renderRoofline(sec('fe-roofline'));
    renderHotspots(sec('fe-hotspots'));
    renderAssumptions(sec('fe-assumptions'));
    document.getElementById('fe-main').addEventListener('click', onJump);
    document.getElementById('fe-details').addEventListener('click', onJump);
    document.addEventListener('keydown', (e) => { if (e.key === 'Escape') closeDetails(); });
    let timer = 0;
    window.addEventListener('resize', () => { clearTimeout(timer); timer = setTimeout(() => charts.forEach((c) => c.draw()), 120); });
    const interactive = performance.now();
    if (location.hash.includes('selftest')) selftest(interactive);
  }
  document.addEventListener('DOMContentLoaded', main);
})();
