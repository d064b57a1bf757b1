//! The interactive map: one self-contained HTML page (inline CSS and JS, no network).

use super::{MapData, escape_xml, palette};
use serde::Serialize;

/// What the page's script reads (embedded as JSON in a `<script type="application/json">`).
#[derive(Serialize)]
struct Payload<'a> {
    title: &'a str,
    points: Vec<PointOut<'a>>,
    clusters: Vec<ClusterOut<'a>>,
    related: Vec<Vec<usize>>,
    focus: Option<FocusOut>,
    unclustered: &'static str,
}

#[derive(Serialize)]
struct PointOut<'a> {
    id: &'a str,
    title: &'a str,
    topic: &'a str,
    highlight: &'a str,
    kind: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
    /// Position in `clusters`, or -1.
    c: i64,
    x: f32,
    y: f32,
}

#[derive(Serialize)]
struct ClusterOut<'a> {
    label: &'a str,
    color: String,
    count: usize,
    anchor: Option<[f32; 2]>,
}

#[derive(Serialize)]
struct FocusOut {
    paper: Option<usize>,
    neighbors: Vec<usize>,
    path: Vec<usize>,
}

/// Coordinates in the page keep 4 decimals (0.1 px on a 1,000 px map).
fn round4(v: f32) -> f32 {
    ((v.clamp(0.0, 1.0) as f64 * 1e4).round() / 1e4) as f32
}

/// The payload as JSON that is safe inside a `<script>` element: `<`, `>` and `&` (which
/// can only occur inside JSON strings) are written as `\u003c`, `\u003e`, `\u0026`, so no
/// `</script>` or `<!--` can appear.
fn script_json(payload: &Payload) -> String {
    let json = serde_json::to_string(payload).unwrap_or_else(|_| "null".to_string());
    let mut out = String::with_capacity(json.len() + 64);
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

/// Renders the map as one self-contained HTML page that works from disk (no network, no
/// external fonts, scripts or styles): a canvas with one dot per paper coloured by cluster,
/// cluster labels at the cluster anchors (greedy collision avoidance, redone at each zoom
/// level; paper titles appear when zoomed in), a tooltip on hover (title, topic, kind,
/// highlight), a side panel on click (the paper and its `related` papers, which select and
/// centre on click), wheel zoom, drag pan, a title search that highlights matches (Enter jumps
/// to the first), a legend (click a topic to highlight it), and, with a focus, the paper, its
/// neighbours and the reading path as numbered arrows.
///
/// The data travels as JSON in `<script type="application/json" id="map-data">`, escaped so
/// that it cannot close the script element; text reaches the page through `textContent` only.
/// After drawing, the root element `#map-root` carries `data-points` (points in the data),
/// `data-rendered-points` (points drawn) and `data-errors` (script errors so far), and
/// `window.__mapReady = {points: N}` is set.
///
/// `xy[i]` (in `[0, 1]^2`, as [`super::layout`] returns) places `data.points[i]`; points
/// without coordinates are left out, and indices out of range are dropped.
pub fn render_html(data: &MapData, xy: &[[f32; 2]]) -> String {
    let n = data.drawn(xy);
    let infos = data.cluster_infos(xy);
    let valid = |v: &[usize]| -> Vec<usize> { v.iter().copied().filter(|&j| j < n).collect() };
    let payload = Payload {
        title: &data.title,
        points: (0..n)
            .map(|i| {
                let p = &data.points[i];
                PointOut {
                    id: &p.id,
                    title: &p.title,
                    topic: &p.topic,
                    highlight: &p.highlight,
                    kind: &p.kind,
                    url: p.url.as_deref(),
                    c: data.cluster_slot(p.cluster).map_or(-1, |s| s as i64),
                    x: round4(xy[i][0]),
                    y: round4(xy[i][1]),
                }
            })
            .collect(),
        clusters: data
            .clusters
            .iter()
            .zip(&infos)
            .enumerate()
            .map(|(slot, (c, info))| ClusterOut {
                label: &c.label,
                color: super::cluster_color(slot),
                count: info.count,
                anchor: info.anchor.map(|a| [round4(a[0]), round4(a[1])]),
            })
            .collect(),
        related: (0..n)
            .map(|i| data.related.get(i).map(|r| valid(r)).unwrap_or_default())
            .collect(),
        focus: data.focus.as_ref().map(|f| FocusOut {
            paper: (f.paper < n).then_some(f.paper),
            neighbors: valid(&f.neighbors),
            path: valid(&f.path),
        }),
        unclustered: palette::UNCLUSTERED,
    };
    let title = escape_xml(&data.title);
    let count = n.to_string();
    let json = script_json(&payload);
    fill(
        TEMPLATE,
        &[
            ("{{TITLE}}", &title),
            ("{{N}}", &count),
            ("{{DATA}}", &json),
        ],
    )
}

/// The template with each placeholder replaced, in one pass (so that a value containing a
/// placeholder's name is never substituted again).
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out =
        String::with_capacity(template.len() + values.iter().map(|v| v.1.len()).sum::<usize>());
    let mut rest = template;
    while let Some(at) = rest.find("{{") {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match values.iter().find(|(k, _)| rest.starts_with(k)) {
            Some((k, v)) => {
                out.push_str(v);
                rest = &rest[k.len()..];
            }
            None => {
                out.push_str("{{");
                rest = &rest[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

const TEMPLATE: &str = r##"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{TITLE}}</title>
<style>
*{box-sizing:border-box}
html,body{margin:0;height:100%;font-family:system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif;color:#222;background:#fff}
#map-root{display:flex;flex-direction:column;height:100vh}
header{display:flex;align-items:center;gap:12px;padding:8px 14px;border-bottom:1px solid #ddd;flex:0 0 auto}
header h1{font-size:17px;font-weight:600;margin:0;flex:1 1 auto;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
#search{width:260px;padding:5px 8px;border:1px solid #bbb;border-radius:4px;font:inherit;font-size:14px}
#count{font-size:13px;color:#666;min-width:80px}
button{font:inherit;font-size:13px;cursor:pointer;white-space:nowrap}
#reset{padding:4px 10px;border:1px solid #bbb;border-radius:4px;background:#f6f6f6}
main{display:flex;flex:1 1 auto;min-height:0}
#stage{position:relative;flex:1 1 auto;min-width:0;overflow:hidden;cursor:grab}
#stage.dragging{cursor:grabbing}
#canvas{display:block;width:100%;height:100%}
#tooltip{position:absolute;pointer-events:none;max-width:360px;background:rgba(255,255,255,.97);border:1px solid #bbb;border-radius:5px;padding:7px 9px;font-size:13px;box-shadow:0 2px 8px rgba(0,0,0,.15);z-index:2}
#tooltip .t{font-weight:600;margin-bottom:3px}
#tooltip .m{color:#666;font-size:12px;margin-bottom:3px}
#tooltip .h{color:#333;line-height:1.4}
aside{flex:0 0 320px;border-left:1px solid #ddd;overflow-y:auto;padding:10px 14px;font-size:14px}
aside h2{font-size:14px;margin:12px 0 6px;color:#444}
#details .pt{font-size:16px;font-weight:600;margin:4px 0}
#details .meta{color:#666;font-size:13px;margin-bottom:6px}
#details .hl{line-height:1.5;margin-bottom:6px}
#details .hint{color:#777}
ol,ul{margin:0;padding-left:20px}
ol li{margin:3px 0}
.link{background:none;border:none;padding:0;color:#1a5fb4;text-align:left;cursor:pointer;font-size:14px}
.link:hover{text-decoration:underline}
#legend-list{list-style:none;padding:0}
#legend-list li{display:flex;align-items:center;gap:7px;padding:2px 4px;border-radius:3px;cursor:pointer;font-size:13px}
#legend-list li:hover{background:#f2f2f2}
#legend-list li.on{background:#e6eefb}
.sw{flex:0 0 11px;height:11px;border-radius:50%}
.n{color:#888;margin-left:auto}
</style>
</head>
<body>
<div id="map-root" data-points="{{N}}" data-rendered-points="0" data-errors="0">
<header><h1 id="map-title">{{TITLE}}</h1><input id="search" type="search" placeholder="Search titles…" autocomplete="off"><span id="count"></span><button id="reset" type="button">Reset view</button></header>
<main>
<div id="stage"><canvas id="canvas"></canvas><div id="tooltip" hidden></div></div>
<aside id="panel"><section id="details"><p class="hint">Hover a dot for its title; click it for related papers. Wheel to zoom, drag to pan.</p></section><section id="legend"><h2>Topics</h2><ul id="legend-list"></ul></section></aside>
</main>
</div>
<script>
(function(){
  var errors = 0;
  function count(){ errors++; var r = document.getElementById('map-root'); if (r) r.setAttribute('data-errors', String(errors)); }
  window.addEventListener('error', count);
  window.addEventListener('unhandledrejection', count);
  var ce = console.error;
  console.error = function(){ count(); return ce.apply(console, arguments); };
})();
</script>
<script type="application/json" id="map-data">{{DATA}}</script>
<script>
(function(){
'use strict';
var root = document.getElementById('map-root');
var D = JSON.parse(document.getElementById('map-data').textContent);
var P = D.points, N = P.length, C = D.clusters, F = D.focus;
var stage = document.getElementById('stage'), canvas = document.getElementById('canvas');
var ctx = canvas.getContext('2d'), tip = document.getElementById('tooltip');
var search = document.getElementById('search'), countEl = document.getElementById('count');
var details = document.getElementById('details'), legendList = document.getElementById('legend-list');
var W = 0, H = 0, dpr = 1, bx = new Float32Array(N), by = new Float32Array(N);
var view = {s: 1, tx: 0, ty: 0};
var hover = -1, selected = -1, query = '', matches = null, nMatches = 0, clusterOn = -1;
var FONT = 'system-ui,-apple-system,"Segoe UI","Noto Sans","Noto Sans CJK SC","PingFang SC","Microsoft YaHei",sans-serif';
var focusSet = new Uint8Array(N), pathStep = new Int32Array(N);
if (F) {
  F.neighbors.forEach(function(j){ focusSet[j] = 1; });
  if (F.paper !== null) focusSet[F.paper] = 2;
  F.path.forEach(function(j, k){ pathStep[j] = k + 1; if (!focusSet[j]) focusSet[j] = 1; });
}
function color(i){ var c = P[i].c; return c >= 0 ? C[c].color : D.unclustered; }
function el(tag, cls, text){ var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function short(t, n){ return t.length > n ? t.slice(0, n - 1) + '…' : t; }
function X(i){ return bx[i] * view.s + view.tx; }
function Y(i){ return by[i] * view.s + view.ty; }
function radius(){ var r = N <= 300 ? 5 : N <= 2000 ? 3.5 : 2.4; return Math.min(r * Math.sqrt(view.s), 12); }

function resize(){
  var r = stage.getBoundingClientRect();
  W = Math.max(200, r.width); H = Math.max(200, r.height);
  dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(W * dpr); canvas.height = Math.round(H * dpr);
  var m = 36, size = Math.max(50, Math.min(W, H) - 2 * m), ox = (W - size) / 2, oy = (H - size) / 2;
  for (var i = 0; i < N; i++) { bx[i] = ox + P[i].x * size; by[i] = oy + P[i].y * size; }
  draw();
}

function active(i){
  if (matches) return matches[i] === 1;
  if (clusterOn >= 0) return P[i].c === clusterOn;
  if (F && F.paper !== null) return focusSet[i] > 0 || i === selected || related(selected).indexOf(i) >= 0;
  if (selected >= 0) return i === selected || related(selected).indexOf(i) >= 0;
  return true;
}
function related(i){ return i >= 0 && D.related[i] ? D.related[i] : []; }

function measure(text, font){ ctx.font = font; return ctx.measureText(text).width; }
function overlaps(a, b){ return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]; }
function placeLabel(placed, x, y, w, h){
  var offs = [[0,0],[0,-1],[0,1],[1,0],[-1,0],[.7,-.7],[-.7,-.7],[.7,.7],[-.7,.7]];
  for (var ring = 0; ring < 5; ring++) {
    for (var k = 0; k < (ring ? offs.length : 1); k++) {
      var cx = x + offs[k][0] * ring * w * 0.5, cy = y + offs[k][1] * ring * h * 1.1;
      var r = [cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2];
      if (r[0] < 0 || r[1] < 0 || r[2] > W || r[3] > H) continue;
      var free = true;
      for (var q = 0; q < placed.length && free; q++) if (overlaps(placed[q], r)) free = false;
      if (free) { placed.push(r); return [cx, cy]; }
    }
  }
  return null;
}
function haloText(t, x, y){ ctx.lineWidth = 4; ctx.strokeStyle = 'rgba(255,255,255,.92)'; ctx.strokeText(t, x, y); ctx.fillText(t, x, y); }

function arrow(x0, y0, x1, y1, r){
  var dx = x1 - x0, dy = y1 - y0, L = Math.sqrt(dx * dx + dy * dy);
  if (L < 2 * r + 4) return;
  var ux = dx / L, uy = dy / L, sx = x0 + ux * r, sy = y0 + uy * r, ex = x1 - ux * (r + 2), ey = y1 - uy * (r + 2);
  ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(ex, ey); ctx.stroke();
  ctx.beginPath(); ctx.moveTo(ex, ey);
  ctx.lineTo(ex - ux * 9 - uy * 4.5, ey - uy * 9 + ux * 4.5);
  ctx.lineTo(ex - ux * 9 + uy * 4.5, ey - uy * 9 - ux * 4.5);
  ctx.closePath(); ctx.fill();
}

function draw(){
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.fillStyle = '#fff'; ctx.fillRect(0, 0, W, H);
  var r = radius(), i, drawn = 0, act = new Uint8Array(N), anyDim = false;
  for (i = 0; i < N; i++) { act[i] = active(i) ? 1 : 0; if (!act[i]) anyDim = true; }
  // Dimmed points first, then active ones, batched by colour.
  for (var pass = 0; pass < 2; pass++) {
    var groups = {};
    for (i = 0; i < N; i++) { if (act[i] !== pass) continue; var c = color(i); (groups[c] = groups[c] || []).push(i); }
    ctx.globalAlpha = pass === 1 ? 0.9 : (matches || clusterOn >= 0) ? 0.16 : 0.35;
    Object.keys(groups).forEach(function(c){
      ctx.fillStyle = c; ctx.beginPath();
      groups[c].forEach(function(j){ var x = X(j), y = Y(j); ctx.moveTo(x + r, y); ctx.arc(x, y, r, 0, 2 * Math.PI); drawn++; });
      ctx.fill();
    });
  }
  ctx.globalAlpha = 1;
  // Selection: lines to related papers.
  if (selected >= 0) {
    ctx.strokeStyle = 'rgba(60,60,60,.45)'; ctx.lineWidth = 1.2;
    related(selected).forEach(function(j){ ctx.beginPath(); ctx.moveTo(X(selected), Y(selected)); ctx.lineTo(X(j), Y(j)); ctx.stroke(); });
    related(selected).forEach(function(j){ ring(j, r + 2.5, '#555', 1.5); });
  }
  if (F) {
    F.neighbors.forEach(function(j){ ring(j, r + 3, '#444', 1.6); });
    ctx.strokeStyle = '#222'; ctx.fillStyle = '#222'; ctx.lineWidth = 2;
    for (i = 0; i + 1 < F.path.length; i++) arrow(X(F.path[i]), Y(F.path[i]), X(F.path[i + 1]), Y(F.path[i + 1]), r + 3);
    if (F.paper !== null) ring(F.paper, r + 5, '#d62728', 3);
    ctx.font = '700 11px ' + FONT; ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    F.path.forEach(function(j, k){
      var x = X(j) + r + 8, y = Y(j) - r - 8;
      ctx.fillStyle = '#222'; ctx.beginPath(); ctx.arc(x, y, 8, 0, 2 * Math.PI); ctx.fill();
      ctx.fillStyle = '#fff'; ctx.fillText(String(k + 1), x, y);
    });
  }
  if (matches) for (i = 0; i < N; i++) if (matches[i]) ring(i, r + 2, '#111', 1.2);
  if (selected >= 0) ring(selected, r + 4, '#111', 2.5);
  if (hover >= 0) ring(hover, r + 3, '#111', 1.5);
  drawLabels(r);
  root.setAttribute('data-rendered-points', String(drawn));
  window.__mapReady = {points: drawn};
}
function ring(i, rr, col, lw){ ctx.strokeStyle = col; ctx.lineWidth = lw; ctx.beginPath(); ctx.arc(X(i), Y(i), rr, 0, 2 * Math.PI); ctx.stroke(); }

function drawLabels(r){
  var placed = [], i;
  // Keep labels off the focus marks and the selection.
  function block(x, y, h){ placed.push([x - h, y - h, x + h, y + h]); }
  if (F) {
    if (F.paper !== null) block(X(F.paper), Y(F.paper), r + 6);
    F.path.forEach(function(j){ block(X(j), Y(j), r + 4); block(X(j) + r + 8, Y(j) - r - 8, 9); });
  }
  if (selected >= 0) block(X(selected), Y(selected), r + 5);
  ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  // Titles of the focused / selected papers come first.
  var must = [];
  if (F && F.paper !== null) must.push(F.paper);
  if (selected >= 0 && must.indexOf(selected) < 0) must.push(selected);
  var tfont = '600 12px ' + FONT;
  must.forEach(function(j){
    var t = short(P[j].title, 48), w = measure(t, tfont) + 6;
    var s = placeLabel(placed, X(j), Y(j) + r + 12, w, 16);
    if (s) { ctx.font = tfont; ctx.fillStyle = '#000'; haloText(t, s[0], s[1]); }
  });
  // Cluster labels, biggest first.
  var order = C.map(function(c, k){ return k; }).filter(function(k){ return C[k].anchor && C[k].count > 0; });
  order.sort(function(a, b){ return C[b].count - C[a].count || a - b; });
  var cfont = '600 14px ' + FONT, size = Math.min(W, H) - 72;
  var ox = (W - size) / 2, oy = (H - size) / 2;
  order.forEach(function(k){
    var t = short(C[k].label, 40), w = measure(t, cfont) + 8;
    var x = (ox + C[k].anchor[0] * size) * view.s + view.tx, y = (oy + C[k].anchor[1] * size) * view.s + view.ty;
    var s = placeLabel(placed, x, y, w, 19);
    if (s) { ctx.font = cfont; ctx.fillStyle = clusterOn < 0 || clusterOn === k ? '#1b1b1b' : '#999'; haloText(t, s[0], s[1]); }
  });
  // Paper titles when few papers are in view (zoomed in).
  var vis = [];
  for (i = 0; i < N; i++) { var x = X(i), y = Y(i); if (x > 0 && x < W && y > 0 && y < H) vis.push(i); }
  if (vis.length <= 45 || view.s >= 6) {
    var pfont = '12px ' + FONT, budget = 80;
    ctx.font = pfont;
    for (var q = 0; q < vis.length && budget > 0; q++) {
      var j = vis[q]; if (must.indexOf(j) >= 0) continue;
      var t = short(P[j].title, 36), w = measure(t, pfont) + 4;
      var s = placeLabel(placed, X(j), Y(j) - r - 9, w, 15);
      if (s) { ctx.font = pfont; ctx.fillStyle = '#333'; haloText(t, s[0], s[1]); budget--; }
    }
  }
}

var pending = false;
function redraw(){ if (pending) return; pending = true; requestAnimationFrame(function(){ pending = false; draw(); }); }

function hit(mx, my){
  var best = -1, bd = Math.pow(radius() + 5, 2);
  for (var i = 0; i < N; i++) { var dx = X(i) - mx, dy = Y(i) - my, d = dx * dx + dy * dy; if (d <= bd) { bd = d; best = i; } }
  return best;
}

function showTip(i, mx, my){
  if (i < 0) { tip.hidden = true; return; }
  tip.textContent = '';
  var p = P[i];
  tip.appendChild(el('div', 't', p.title));
  var meta = [p.topic, p.kind].filter(function(s){ return s; }).join(' · ');
  if (meta) tip.appendChild(el('div', 'm', meta));
  if (p.highlight) tip.appendChild(el('div', 'h', short(p.highlight, 280)));
  tip.hidden = false;
  var tw = tip.offsetWidth, th = tip.offsetHeight;
  var x = mx + 14, y = my + 14;
  if (x + tw > W - 4) x = Math.max(4, mx - tw - 14);
  if (y + th > H - 4) y = Math.max(4, my - th - 14);
  tip.style.left = x + 'px'; tip.style.top = y + 'px';
}

function paperLink(j, prefix){
  var li = el('li'), b = el('button', 'link', (prefix || '') + P[j].title);
  b.type = 'button';
  var sw = el('span', 'sw'); sw.style.background = color(j); sw.style.display = 'inline-block'; sw.style.width = '9px'; sw.style.height = '9px'; sw.style.marginRight = '6px';
  b.insertBefore(sw, b.firstChild);
  b.addEventListener('click', function(){ select(j, true); });
  li.appendChild(b); return li;
}

function showDetails(){
  details.textContent = '';
  if (F && F.path.length) {
    details.appendChild(el('h2', null, 'Reading path'));
    var ol = el('ol'); F.path.forEach(function(j){ ol.appendChild(paperLink(j)); }); details.appendChild(ol);
  }
  if (selected < 0) {
    details.appendChild(el('p', 'hint', 'Hover a dot for its title; click it for related papers. Wheel to zoom, drag to pan.'));
    return;
  }
  var p = P[selected];
  details.appendChild(el('h2', null, F && F.paper === selected ? 'Focus' : 'Paper'));
  details.appendChild(el('div', 'pt', p.title));
  var meta = [p.topic, p.kind, p.id].filter(function(s){ return s; }).join(' · ');
  details.appendChild(el('div', 'meta', meta));
  if (p.highlight) details.appendChild(el('div', 'hl', p.highlight));
  if (p.url && /^https?:\/\//.test(p.url)) {
    var a = el('a', 'link', p.url); a.href = p.url; a.rel = 'noopener noreferrer'; a.target = '_blank';
    details.appendChild(a);
  }
  var rel = related(selected);
  details.appendChild(el('h2', null, rel.length ? 'Related papers' : 'No related papers listed'));
  var list = el('ol'); rel.forEach(function(j){ list.appendChild(paperLink(j)); }); details.appendChild(list);
}

function select(i, centre){
  selected = i;
  if (i >= 0 && centre) { view.tx = W / 2 - bx[i] * view.s; view.ty = H / 2 - by[i] * view.s; }
  showDetails(); redraw();
}

function buildLegend(){
  legendList.textContent = '';
  C.forEach(function(c, k){
    if (!c.count) return;
    var li = el('li'), sw = el('span', 'sw'); sw.style.background = c.color;
    li.appendChild(sw); li.appendChild(el('span', null, c.label)); li.appendChild(el('span', 'n', String(c.count)));
    li.addEventListener('click', function(){
      clusterOn = clusterOn === k ? -1 : k;
      Array.prototype.forEach.call(legendList.children, function(e){ e.classList.remove('on'); });
      if (clusterOn === k) li.classList.add('on');
      redraw();
    });
    legendList.appendChild(li);
  });
  var other = P.filter(function(p){ return p.c < 0; }).length;
  if (other) { var li = el('li'), sw = el('span', 'sw'); sw.style.background = D.unclustered; li.appendChild(sw); li.appendChild(el('span', null, 'other')); li.appendChild(el('span', 'n', String(other))); legendList.appendChild(li); }
}

function runSearch(){
  query = search.value.trim().toLowerCase();
  if (!query) { matches = null; countEl.textContent = ''; redraw(); return; }
  matches = new Uint8Array(N); nMatches = 0;
  for (var i = 0; i < N; i++) {
    if (P[i].title.toLowerCase().indexOf(query) >= 0 || P[i].id.toLowerCase().indexOf(query) >= 0) { matches[i] = 1; nMatches++; }
  }
  countEl.textContent = nMatches + (nMatches === 1 ? ' match' : ' matches');
  redraw();
}
search.addEventListener('input', runSearch);
search.addEventListener('keydown', function(e){
  if (e.key === 'Enter' && matches) { for (var i = 0; i < N; i++) if (matches[i]) { select(i, true); break; } }
  if (e.key === 'Escape') { search.value = ''; runSearch(); }
});
document.getElementById('reset').addEventListener('click', function(){ view = {s: 1, tx: 0, ty: 0}; redraw(); });
document.addEventListener('keydown', function(e){ if (e.key === 'Escape' && e.target !== search) { select(-1); clusterOn = -1; buildLegend(); redraw(); } });

var drag = null;
function pos(e){ var r = canvas.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
canvas.addEventListener('wheel', function(e){
  e.preventDefault();
  var m = pos(e), f = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
  var s = Math.min(60, Math.max(0.4, view.s * f)); f = s / view.s;
  view.tx = m[0] - (m[0] - view.tx) * f; view.ty = m[1] - (m[1] - view.ty) * f; view.s = s;
  tip.hidden = true; redraw();
}, {passive: false});
canvas.addEventListener('pointerdown', function(e){ var m = pos(e); drag = {x: m[0], y: m[1], tx: view.tx, ty: view.ty, moved: false}; canvas.setPointerCapture(e.pointerId); });
canvas.addEventListener('pointermove', function(e){
  var m = pos(e);
  if (drag) {
    var dx = m[0] - drag.x, dy = m[1] - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { drag.moved = true; stage.classList.add('dragging'); }
    if (drag.moved) { view.tx = drag.tx + dx; view.ty = drag.ty + dy; tip.hidden = true; redraw(); return; }
  }
  var h = hit(m[0], m[1]);
  if (h !== hover) { hover = h; redraw(); }
  showTip(h, m[0], m[1]);
});
canvas.addEventListener('pointerup', function(e){
  if (drag && !drag.moved) { var m = pos(e); select(hit(m[0], m[1]), false); }
  drag = null; stage.classList.remove('dragging');
});
canvas.addEventListener('pointerleave', function(){ if (!drag) { hover = -1; tip.hidden = true; redraw(); } });
window.addEventListener('resize', resize);

buildLegend();
if (F && F.paper !== null) selected = F.paper;
showDetails();
resize();
})();
</script>
</body>
</html>
"##;
