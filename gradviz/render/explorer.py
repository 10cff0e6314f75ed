"""The explorer: a drawn graph that can be searched, read node by node and replayed.

``data(snap, graph)`` gathers, as plain JSON-ready lists, what the page needs beyond the
picture: every node and op with its name, module, line and code, what it saved and how
big, where it sends gradients, and the backward call's replay (``inspect.replay``), step
by step. ``block(...)`` is the HTML around one picture: a search box, Back / Step / Play
buttons with "step k of N", and a details panel. The page's script (``SCRIPT``) does the
rest; without it (a notebook that is not trusted) the picture stays, static.

Everything from the user's program (names, lines of code, values) reaches the page as
JSON text in a ``<script type="application/json">`` block, escaped so it cannot end the
block, and the script writes it with ``textContent`` only: it stays text.

Schema (lists, for size: a 100,000-node graph; every text is a number into ``strings``):
  node: [name, output names, module, "file:line", code line, drawn, leaf, saved, next, formulas]
    leaf: [name, shape, dtype, grad shape or null, why it has no gradient or null] or null
    saved: [[attribute, tensor name, kind, shape, dtype, bytes, state]]  (state: "kept",
           "freed by backward at x.py:9", "recomputed in backward", ...)
    next: [[target node index or -1, input_nr]]
    formulas: [[input, text]]
  op: [name, module, "file:line", code line, drawn, input names, output names, node index or -1]
  lanes: [[call, steps, ran]]: earlier backward calls through the same graph
  step: [node index, arriving, leaving, leaf .grad before, after]; a gradient: [shape, dtype, norm, min, max, mean], or
    [shape, dtype, values] when it has at most 16 elements
"""
import html
import json
import linecache

from .values import site_text
from .jsonout import tensor_bytes

MAX_CODE = 160  # characters of a line of code kept per node


def data(snap, graph=None, title="", layers=(), reasons=None, focus=-1) -> dict:
    """The explorer's data for ``snap``, drawn as ``graph`` (a dot.Graph: which box stands
    for each node), as a dict of plain lists. Texts that repeat (names, lines, modules,
    states) are numbers into ``strings``: a loop's 100,000 nodes share a few."""
    drawn = graph.drawn_as if graph is not None else (lambda item: None)
    table = _Strings()
    code = _CodeLines()
    index = {n.id: k for k, n in enumerate(snap.nodes)}
    values = {v.id: v.name for v in snap.values}
    labels = {v.id: v.name for v in snap.values if v.name not in ("tensor", "leaf", "?")}  # saved slots' names
    nodes = [_node(n, index, drawn, code, table, reasons or {}, labels) for n in snap.nodes]
    S = table
    ops = [[S(op.name), S(op.module), S(site_text(op.site) or ""), S(code(op.site)), S(drawn(op.id)),
            [S(values.get(v, v)) for v in op.inputs], [S(values.get(v, v)) for v in op.outputs],
            index.get(op.node, -1)] for op in snap.ops]
    steps = _steps(snap.replay, index, S)
    call = snap.backward_calls[-1] if snap.backward_calls else None
    lanes = [[_call_text(lane.call), _steps(lane.steps, index, S), lane.ran] for lane in snap.lanes]
    levels = graph.module_levels if graph is not None else None
    depths = {}  # other depth -> [box of each node], [box of each op]: see ``layers``
    for depth, other in layers:
        depths[depth] = [[S(other.drawn_as(n.id)) for n in snap.nodes], [S(other.drawn_as(op.id)) for op in snap.ops]]
    return {"title": title, "strings": table.strings, "nodes": nodes, "ops": ops, "steps": steps,
            "depth": levels[0] if levels and depths else None, "levels": levels[1] if levels and depths else None,
            "depths": depths,
            "ran": snap.replay_ran or len(steps),
            "call": _call_text(call), "lanes": lanes,
            "focus": next((k for k, n in enumerate(snap.nodes) if focus >= 0 and n.sequence_nr == focus
                           and not n.is_accumulate), -1)}


def _steps(replay, index, S):
    return [[index.get(s.node, -1), [_stats(g, S) for g in s.grads_in], [_stats(g, S) for g in s.grads_out],
             _stats(s.grad_before, S), _stats(s.grad_after, S)] for s in replay]


def _call_text(call):
    if call is None:
        return ""
    return f"{call.kind} at {site_text(call.site)}" if call.site else call.kind


class _Strings:
    """A table of texts: ``S(text)`` is its number (None stays None)."""

    def __init__(self):
        self.strings, self.numbers = [], {}

    def __call__(self, text):
        if text is None:
            return None
        k = self.numbers.get(text)
        if k is None:
            k = self.numbers[text] = len(self.strings)
            self.strings.append(text)
        return k


def _node(n, index, drawn, code, S, reasons, labels):
    leaf = n.leaf
    leaf_info = None if leaf is None else [S(leaf.name), list(leaf.shape), S(leaf.dtype),
                                           None if leaf.grad is None else list(leaf.grad.shape),
                                           S(reasons.get(leaf.name))]
    saved = [[S(x.attr), S(x.tensor_name or labels.get(x.value)), S(x.kind),
              None if x.shape is None else list(x.shape), S(x.dtype),
              tensor_bytes(x.shape, x.dtype) if x.kind in ("tensor", "freed") else None, S(_state(x, n))]
             for x in n.saved if x.is_tensor]
    nxt = [[-1 if e.target is None else index[e.target], e.output_nr] for e in n.edges]
    formulas = getattr(n, "formulas", ())
    return [S(n.label_name), [S(o) for o in n.output_names], S(n.module), S(site_text(n.site) or ""), S(code(n.site)),
            S(drawn(n.id)), leaf_info, saved, nxt, [[S(i), S(f)] for i, f in formulas]]


def _state(x, node):
    if x.recomputed:
        return "recomputed in backward (checkpoint)"
    if x.freed:
        call = node.freed_by
        return f"freed by {call.kind} at {site_text(call.site)}" if call is not None and call.site else "freed"
    if x.stale:
        return f"modified in place since it was saved (v{x.saved_version}, now v{x.current_version})"
    return "kept" if x.kind == "tensor" else x.kind


def _stats(g, S):
    """A gradient: [shape, dtype, norm, min, max, mean], or [shape, dtype, values] when
    small (the page computes the rest)."""
    if g is None:
        return None
    if g.values is not None:
        return [list(g.shape), S(g.dtype), [_number(v) for v in g.values]]
    return [list(g.shape), S(g.dtype), _number(g.norm), _number(g.min), _number(g.max), _number(g.mean)]


def _number(x):
    """A float as JSON can carry it: NaN and infinities as strings."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return float(f"{x:.6g}")


class _CodeLines:
    """The line of code at a site, read once per line."""

    def __init__(self):
        self.lines = {}

    def __call__(self, site):
        if not site:
            return ""
        if site not in self.lines:
            text = linecache.getline(str(site[0]), int(site[1])).strip()
            self.lines[site] = text[:MAX_CODE]
        return self.lines[site]


def block(number: int, payload: dict) -> str:
    """The explorer's controls and its data for the picture ``number`` of a page."""
    steps = len(payload["steps"])
    lanes = payload.get("lanes") or []
    choose = ""
    if lanes:  # several backward calls ran through this graph: one lane each, the last shown first
        options = [f"{k + 1}. {escape(text)}" for k, text in enumerate([lane[0] for lane in lanes] + [payload["call"]])]
        choose = ('<select aria-label="Backward call">' + "".join(
            f'<option value="{k}"{" selected" if k == len(lanes) else ""}>{text}</option>'
            for k, text in enumerate(options)) + "</select>")
    replay = (f'<div class="gv-replay" role="group" aria-label="replay of the backward pass">{choose}'
              f'<button type="button" data-act="back">Back</button>'
              f'<button type="button" data-act="step">Step</button>'
              f'<button type="button" data-act="play">Play</button>'
              f'<span class="gv-stepno" role="status">step 0 of {steps}</span></div>') if steps else ""
    if payload.get("depths"):
        replay += (f'<div class="gv-modules" role="group" aria-label="module groups">'
                   f'<button type="button" data-act="close">Close a level</button>'
                   f'<span class="gv-depthno" role="status">modules open to depth {payload["depth"]} of '
                   f'{payload["levels"]}</span><button type="button" data-act="open">Open a level</button></div>')
    text = json.dumps(payload, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    return (f'<div class="gv-explore" hidden><label class="gv-search"><span>Find</span>'
            f'<input type="search" placeholder="name, module, op or line" aria-label="Search the graph">'
            f'</label><span class="gv-matches" role="status" aria-live="polite"></span>'
            f'<button type="button" class="gv-heat" aria-pressed="false">Colour by saved bytes</button>{replay}</div>'
            f'<script type="application/json" class="gv-data" id="gv-data-{number}">{text}</script>')


def details_panel() -> str:
    return ('<aside class="gv-details" aria-live="polite" hidden><p class="gv-hint">Click a node, or search, to see '
            'what it saved, where its gradients go and the formula of each; Step replays the backward pass.'
            '</p></aside>')


def escape(text) -> str:
    return html.escape(str(text), quote=True)


CSS = """
.gv-explore{display:flex;flex-wrap:wrap;gap:10px;align-items:center;margin:0 0 6px;font-size:13px}
.gv-search{display:flex;gap:6px;align-items:center}
.gv-search input{font:13px ui-monospace,monospace;padding:3px 8px;border:1px solid var(--line);border-radius:5px;
  min-width:260px}
.gv-matches,.gv-stepno{color:var(--muted);font-size:13px}
.gv-replay,.gv-modules{display:flex;gap:6px;align-items:center}
.gv-heat{font:13px -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;padding:3px 10px;border:1px solid var(--line);
  border-radius:5px;background:var(--bg);cursor:pointer}
.gv-heat[aria-pressed=true]{background:#ffebe9;border-color:#cf222e}
.gv-modules button{font:13px -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;padding:3px 10px;
  border:1px solid var(--line);border-radius:5px;background:var(--bg);cursor:pointer}
.gv-depthno{color:var(--muted);font-size:13px}
.gv-replay button{font:13px -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;padding:3px 12px;
  border:1px solid var(--line);border-radius:5px;background:var(--bg);cursor:pointer}
.gv-replay select{font:13px -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;padding:2px 4px}
.gv-replay button[aria-pressed=true]{background:#ddf4ff;border-color:var(--blue)}
.gv-body{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:10px}
.gv-body:has(> aside[hidden]){grid-template-columns:1fr}
.gv-explore[hidden],.gv-details[hidden],.gv-tools[hidden]{display:none}
.gv-details{border:1px solid var(--line);border-radius:6px;padding:8px 12px;font-size:13px;overflow:auto;
  max-height:75vh;background:#fff}
.gv-details h4{margin:2px 0 4px;font-size:14px;word-break:break-all}
.gv-details code,.gv-details pre{font:12px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.gv-details pre{white-space:pre-wrap;margin:4px 0;padding:4px 6px}
.gv-details table{border-collapse:collapse;width:100%;font:12px ui-monospace,monospace}
.gv-details td,.gv-details th{border-bottom:1px solid #eaeef2;padding:2px 4px;text-align:left;vertical-align:top}
.gv-details .gv-hint{color:var(--muted)}
.gv-details .gv-slot{margin:0 0 4px;overflow-wrap:anywhere}
.gv-details .gv-slot div{color:var(--muted);font-size:12px}
.gv-details button{font:12px ui-monospace,monospace;margin:1px 0;text-align:left;overflow-wrap:anywhere}
.gv-details .gv-sec{font-size:11px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;margin:8px 0 2px}
g.node.gv-path :is(polygon,ellipse,path){stroke:#8250df;stroke-width:3px}
g.node.gv-match :is(polygon,ellipse,path){stroke:#bf8700;stroke-width:3px}
g.node.gv-sel :is(polygon,ellipse,path){stroke:#0969da;stroke-width:4px}
g.node.gv-done :is(polygon,ellipse){fill:#dafbe1}
g.node.gv-run :is(polygon,ellipse,path){fill:#fff8c5;stroke:#bf8700;stroke-width:4px}
g.edge.gv-flow path{stroke:#bf8700;stroke-width:3px}
svg.gv-focus g.node:not(.gv-near){opacity:.15}
g.node.gv-noreason :is(polygon,ellipse,path){stroke:#bf3989;stroke-width:3px;stroke-dasharray:6 3}
svg.gv-focus g.edge{opacity:.25}
text.gv-edgeval{font:11px ui-monospace,monospace;fill:#9a6700;paint-order:stroke;stroke:#fff;stroke-width:3px}
@media (max-width:900px){.gv-body{grid-template-columns:1fr}}
"""

SCRIPT = r"""
(function(){
function el(tag, text, cls){var e=document.createElement(tag); if(text!=null) e.textContent=String(text);
  if(cls) e.className=cls; return e;}
function shape(s){return '('+s.join(', ')+(s.length===1?',':'')+')';}
function num(x){if(typeof x==='string') return x; var a=Math.abs(x);
  if(a!==0&&(a<1e-3||a>=1e5)) return x.toExponential(3); return String(+x.toPrecision(4));}
function grad(g){if(!g) return 'none'; var s=shape(g[0])+(g[1]!=='float32'?' '+g[1]:'');
  return g[6]?s+' ['+g[6].map(num).join(', ')+']':
    s+'  norm '+num(g[2])+', min '+num(g[3])+', max '+num(g[4])+', mean '+num(g[5]);}
function natural(path){return (path||'').split(/(\d+)/).filter(function(p){return p!=='';})
  .map(function(p){return /^\d+$/.test(p)?+p:p;});}
function brief(g){if(!g) return ''; return g[6]&&g[6].length<=3?'['+g[6].map(num).join(', ')+']':'‖'+num(g[2])+'‖';}

function expand(d){  // numbers into d.strings back to texts; small gradients' statistics
  var S=d.strings; function s(k){return k==null?k:S[k];}
  function g(x){if(!x) return x; if(x.length===3){var v=x[2], n=0, lo=Infinity, hi=-Infinity, m=0;
      v.forEach(function(a){var f=typeof a==='number'?a:NaN; n+=f*f; lo=Math.min(lo,f); hi=Math.max(hi,f); m+=f;});
      return [x[0],s(x[1]),Math.sqrt(n),v.length?lo:NaN,v.length?hi:NaN,v.length?m/v.length:NaN,v];}
    return [x[0],s(x[1]),x[2],x[3],x[4],x[5],null];}
  d.nodes=d.nodes.map(function(n){return [s(n[0]),n[1].map(s),s(n[2]),s(n[3]),s(n[4]),s(n[5]),
    n[6]?[s(n[6][0]),n[6][1],s(n[6][2]),n[6][3],s(n[6][4])]:null,
    n[7].map(function(x){return [s(x[0]),s(x[1]),s(x[2]),x[3],s(x[4]),x[5],s(x[6])];}),n[8],
    n[9].map(function(f){return [s(f[0]),s(f[1])];})];});
  d.ops=d.ops.map(function(o){return [s(o[0]),s(o[1]),s(o[2]),s(o[3]),s(o[4]),o[5].map(s),o[6].map(s),o[7]];});
  d.steps=d.steps.map(function(st){return [st[0],st[1].map(g),st[2].map(g),g(st[3]),g(st[4])];});
  (d.lanes||[]).forEach(function(l){l[1]=l[1].map(function(st){return [st[0],st[1].map(g),st[2].map(g),g(st[3]),g(st[4])];});});
  Object.keys(d.depths||{}).forEach(function(k){d.depths[k]=[d.depths[k][0].map(s),d.depths[k][1].map(s)];});
  return d;}
function Explorer(fig, d){
  d=expand(d); var self=this; this.fig=fig; this.d=d; this.vp=fig.querySelector('.gv-viewport');
  fig.querySelectorAll('.gv-explore,.gv-details').forEach(function(e){e.hidden=false;});
  this.panel=fig.querySelector('.gv-details'); this.k=0; this.timer=null; this.marks={}; this.sel=null;
  this.bind();
  this.users=d.nodes.map(function(){return [];});
  this.markReasons();
  d.nodes.forEach(function(n,k){n[8].forEach(function(e){if(e[0]>=0) self.users[e[0]].push(k);});});
  // A click on a box selects what it stands for. The viewport captures the pointer to pan,
  // so the box is taken as the pointer goes down, and selected if it comes up unmoved.
  var down=null;
  this.vp.addEventListener('pointerdown',function(e){down={g:e.target.closest('g.node'),x:e.clientX,y:e.clientY};},true);
  this.fig.addEventListener('pointerup',function(e){var g=down&&down.g; if(!g) return;
    var moved=Math.abs(e.clientX-down.x)+Math.abs(e.clientY-down.y); down=null; if(moved>4) return;
    var t=g.querySelector('title'), items=t&&self.members[t.textContent]; if(!items) return;
    // a box for several (a folded module): open a level, in place, when there is one
    if(items.length>1&&d.depths&&d.depth<d.levels&&self.setDepth(d.depth+1)){self.select(items[0],true); return;}
    self.select(items[0],false);});
  var box=fig.querySelector('input[type=search]'); this.status=fig.querySelector('.gv-matches');
  this.found=[]; this.at=-1;
  box.addEventListener('input',function(){self.search(box.value);});
  box.addEventListener('keydown',function(e){
    if(e.key==='Enter'||e.key==='ArrowDown'){e.preventDefault(); self.next(1);}
    else if(e.key==='ArrowUp'){e.preventDefault(); self.next(-1);}});
  fig.querySelectorAll('.gv-replay button').forEach(function(b){b.addEventListener('click',function(){
    var a=b.getAttribute('data-act'); if(a==='step') self.step(1); else if(a==='back') self.step(-1); else self.play(b);});});
  var lane=fig.querySelector('.gv-replay select'), last=[d.call,d.steps];
  if(lane) lane.addEventListener('change',function(){var k=+lane.value, l=k<d.lanes.length?d.lanes[k]:last;
    if(self.timer) self.play(fig.querySelector('.gv-replay button[data-act=play]'));
    d.call=l[0]; d.steps=l[1]; self.stepOf=null; self.k=1; self.step(-1);});
  var heat=fig.querySelector('button.gv-heat');
  if(heat) heat.addEventListener('click',function(){var on=heat.getAttribute('aria-pressed')!=='true';
    heat.setAttribute('aria-pressed',on?'true':'false'); self.heat(on);});
  fig.querySelectorAll('.gv-modules button').forEach(function(b){b.addEventListener('click',function(){
    self.setDepth(d.depth+(b.getAttribute('data-act')==='open'?1:-1));});});
  this.stepno=fig.querySelector('.gv-stepno');
}
Explorer.prototype.markReasons=function(){  // leaves with no gradient, or a zero one (grad_reason)
  var self=this; this.clear('gv-noreason');
  this.d.nodes.forEach(function(n,k){if(n[6]&&n[6][4]){var b=self.box(['n',k]); if(b) self.mark(b,'gv-noreason');}});};
Explorer.prototype.heat=function(on){  // each box filled by the bytes its nodes saved (log scale)
  var self=this, sums={}, top=0; this.heatOn=on;
  this.svg.querySelectorAll('g.node').forEach(function(g){var s=g.querySelector('polygon,ellipse,path');
    if(s&&s.dataset.gvFill!==undefined){s.setAttribute('fill',s.dataset.gvFill); delete s.dataset.gvFill;}});
  if(!on) return;
  this.d.nodes.forEach(function(n){var b=n[5]; if(!b) return;
    var bytes=n[7].reduce(function(a,x){return a+(x[5]||0);},0); if(bytes) sums[b]=(sums[b]||0)+bytes;});
  Object.keys(sums).forEach(function(b){top=Math.max(top,sums[b]);});
  Object.keys(sums).forEach(function(b){var g=self.boxes[b], s=g&&g.querySelector('polygon,ellipse,path'); if(!s) return;
    var t=Math.log(1+sums[b])/Math.log(1+top), light=Math.round(97-35*t);
    s.dataset.gvFill=s.getAttribute('fill')||''; s.setAttribute('fill','hsl(8,85%,'+light+'%)');
    var title=g.querySelector('title'); if(title) title.setAttribute('data-bytes',sums[b]);});};
Explorer.prototype.bind=function(){  // the picture in the viewport: its boxes and edges by DOT name
  var self=this, d=this.d; this.svg=this.vp.querySelector('svg'); this.boxes={}; this.edges={}; this.marks={};
  this.svg.querySelectorAll('g.node').forEach(function(g){var t=g.querySelector('title');
    if(t) self.boxes[t.textContent]=g;});
  this.svg.querySelectorAll('g.edge').forEach(function(g){var t=g.querySelector('title');
    if(t) (self.edges[t.textContent]=self.edges[t.textContent]||[]).push(g);});
  this.members={};  // drawn box -> the items it stands for
  d.nodes.forEach(function(n,k){if(n[5]) (self.members[n[5]]=self.members[n[5]]||[]).push(['n',k]);});
  d.ops.forEach(function(o,k){if(o[4]) (self.members[o[4]]=self.members[o[4]]||[]).push(['f',k]);});};
Explorer.prototype.setDepth=function(depth){  // another layout of the same graph: modules open to depth
  var d=this.d, fig=this.fig; if(!d.depths||depth===d.depth||!(String(depth) in d.depths)) return false;
  var here=fig.querySelector('template.gv-layer[data-depth="'+d.depth+'"]');
  if(!here){here=document.createElement('template'); here.className='gv-layer'; here.setAttribute('data-depth',d.depth);
    fig.appendChild(here); d.depths[String(d.depth)]=[d.nodes.map(function(n){return n[5];}),d.ops.map(function(o){return o[4];})];}
  here.content.appendChild(this.svg);  // kept for coming back
  var there=fig.querySelector('template.gv-layer[data-depth="'+depth+'"]');
  this.vp.appendChild(there.content.querySelector('svg'));
  var m=d.depths[String(depth)]; d.nodes.forEach(function(n,k){n[5]=m[0][k];}); d.ops.forEach(function(o,k){o[4]=m[1][k];});
  d.depth=depth; this.bind(); if(fig.gvReset) fig.gvReset();
  var status=fig.querySelector('.gv-depthno'); if(status) status.textContent='modules open to depth '+depth+' of '+d.levels;
  this.markReasons(); if(this.heatOn) this.heat(true);
  if(this.k){var k=this.k; this.k=0; this.step(k);}
  if(this.sel) this.select(this.sel,true);
  return true;};
Explorer.prototype.text=function(kind,k){var d=this.d;
  if(kind==='n'){var n=d.nodes[k]; return [n[0],n[1].join(' '),n[2]||'',n[3],n[4],n[6]?n[6][0]||'':'', 'n'+k].join(' ').toLowerCase();}
  var o=d.ops[k]; return [o[0],o[1]||'',o[2],o[3],o[6].join(' '),'f'+k].join(' ').toLowerCase();};
Explorer.prototype.search=function(q){var self=this, d=this.d; q=q.trim().toLowerCase();
  this.clear('gv-match'); this.found=[]; this.at=-1;
  if(!q){this.status.textContent=''; return;}
  if(!this.hay){this.hay={n:d.nodes.map(function(_,k){return self.text('n',k);}),
                         f:d.ops.map(function(_,k){return self.text('f',k);})};}
  ['n','f'].forEach(function(kind){self.hay[kind].forEach(function(h,k){if(h.indexOf(q)>=0) self.found.push([kind,k]);});});
  // in the model's order: module paths compared number by number (h.2 before h.10), then as found
  this.found.forEach(function(it,i){it.push(natural(self.module(it)),i);});
  this.found.sort(function(a,b){for(var i=0;i<Math.max(a[2].length,b[2].length);i++){var x=a[2][i],y=b[2][i];
    if(x===undefined) return -1; if(y===undefined) return 1; if(x!==y) return typeof x===typeof y?(x<y?-1:1):(typeof x==='number'?-1:1);}
    return a[3]-b[3];});
  var c=this.found.length; this.status.textContent=c===0?'no match':c===1?'1 match':c.toLocaleString('en')+' matches';
  this.found.slice(0,2000).forEach(function(it){var g=self.box(it); if(g) self.mark(g,'gv-match');});};
Explorer.prototype.next=function(dir){if(!this.found.length) return;
  this.at=(this.at+dir+this.found.length)%this.found.length; this.select(this.found[this.at],true);
  this.status.textContent=(this.at+1)+' of '+this.found.length.toLocaleString('en')+' matches';};
Explorer.prototype.module=function(it){return it[0]==='n'?this.d.nodes[it[1]][2]:this.d.ops[it[1]][1];};
Explorer.prototype.who=function(k){var n=this.d.nodes[k]; return n[6]&&n[6][0]?n[0]+' → '+n[6][0]:n[0]+' n'+k;};
Explorer.prototype.box=function(it){var row=it[0]==='n'?this.d.nodes[it[1]]:this.d.ops[it[1]];
  var name=it[0]==='n'?row[5]:row[4]; return name?this.boxes[name]:null;};
Explorer.prototype.mark=function(g,cls){g.classList.add(cls); (this.marks[cls]=this.marks[cls]||[]).push(g);};
Explorer.prototype.clear=function(cls){(this.marks[cls]||[]).forEach(function(g){g.classList.remove(cls);});
  this.marks[cls]=[];};
Explorer.prototype.select=function(it,center){var self=this; this.sel=it; this.clear('gv-sel'); this.clear('gv-path');
  var g=this.box(it); if(g){this.mark(g,'gv-sel'); if(center&&this.fig.gvCenter) this.fig.gvCenter(g);}
  if(it[0]==='n'){  // the way from this node to the roots: what its gradient comes from
    var seen={}, todo=[it[1]], count=0;
    while(todo.length&&count<5000){var k=todo.pop(); if(seen[k]) continue; seen[k]=1; count++;
      var b=this.box(['n',k]); if(b&&b!==g) this.mark(b,'gv-path');
      this.users[k].forEach(function(u){todo.push(u);});}
    this.showNode(it[1]);
  } else this.showOp(it[1]);};
Explorer.prototype.panelStart=function(title){var p=this.panel; p.textContent=''; p.appendChild(el('h4',title)); return p;};
Explorer.prototype.line=function(p,label,value){if(value===''||value==null) return;
  var e=el('div'); e.appendChild(el('b',label+': ')); e.appendChild(el('span',value)); p.appendChild(e);};
Explorer.prototype.focus=function(k){  // dim all but the node and what is two edges away
  var self=this, near={}, todo=[[k,0]]; this.clear('gv-near');
  if(k==null){this.svg.classList.remove('gv-focus'); return;}
  while(todo.length){var t=todo.pop(); if(near[t[0]]!=null&&near[t[0]]<=t[1]) continue; near[t[0]]=t[1];
    if(t[1]<2){this.d.nodes[t[0]][8].forEach(function(e){if(e[0]>=0) todo.push([e[0],t[1]+1]);});
      this.users[t[0]].forEach(function(u){todo.push([u,t[1]+1]);});}}
  Object.keys(near).forEach(function(j){var b=self.box(['n',+j]); if(b) self.mark(b,'gv-near');});
  this.svg.classList.add('gv-focus');};
Explorer.prototype.showNode=function(k){var self=this, n=this.d.nodes[k];
  var p=this.panelStart(this.title(k));
  var focused=this.svg.classList.contains('gv-focus'), f=el('button',focused?'Show all':'Focus on its neighbourhood');
  f.type='button'; f.addEventListener('click',function(){self.focus(focused?null:k); self.showNode(k);}); p.appendChild(f);
  this.line(p,'module',n[2]); this.line(p,'line',n[3]); if(n[4]) p.appendChild(el('pre',n[4]));
  if(n[6]){var L=n[6]; this.line(p,'leaf',(L[0]||'a tensor')+' '+shape(L[1])+' '+L[2]);
    this.line(p,'.grad',L[3]?shape(L[3]):'None'); this.line(p,'is_leaf','True'); this.line(p,'requires_grad','True');
    if(L[4]) this.line(p,'why no gradient',L[4]);}
  if(n[7].length){p.appendChild(el('div','saved for backward','gv-sec'));
    n[7].forEach(function(s){var r=el('div','','gv-slot'); r.appendChild(el('code',s[0]+(s[1]?' = '+s[1]:'')));
      r.appendChild(el('div',[(s[3]?shape(s[3]):'shape unknown')+(s[4]?' '+s[4]:''),
        s[5]!=null?s[5].toLocaleString('en')+' bytes':'', s[6]].filter(Boolean).join(' · '))); p.appendChild(r);});}
  if(n[9].length){p.appendChild(el('div','gradient of each input','gv-sec'));
    n[9].forEach(function(f){var e=el('div'); e.appendChild(el('code',f[0]+': ')); e.appendChild(el('code',f[1])); p.appendChild(e);});}
  if(n[8].length){p.appendChild(el('div','sends gradients to','gv-sec'));
    n[8].forEach(function(e,j){var row=el('div'); if(e[0]<0){row.textContent='['+j+'] nothing (no grad needed)';}
      else{var b=el('button',self.who(e[0])); b.type='button';
        b.addEventListener('click',function(){self.select(['n',e[0]],true);});
        row.appendChild(el('span','['+j+'] ')); row.appendChild(b);} p.appendChild(row);});}
  var s=this.ranAt(k); if(s>=0) this.showStep(p,s,false);};
Explorer.prototype.showOp=function(k){var o=this.d.ops[k];
  var p=this.panelStart(o[0]+'  (forward op f'+k+')'); this.line(p,'module',o[1]); this.line(p,'line',o[2]);
  if(o[3]) p.appendChild(el('pre',o[3])); this.line(p,'inputs',o[5].join(', ')); this.line(p,'outputs',o[6].join(', '));
  if(o[7]>=0){var self=this, b=el('button','its grad_fn: '+this.d.nodes[o[7]][0]+' n'+o[7]); b.type='button';
    b.addEventListener('click',function(){self.select(['n',o[7]],true);}); p.appendChild(b);}};
Explorer.prototype.index=function(){  // once: the step of each node, and what each node received, by step
  if(this.stepOf) return; var d=this.d, stepOf=this.stepOf={}, incoming=this.incoming={};
  d.steps.forEach(function(st,i){if(!(st[0] in stepOf)) stepOf[st[0]]=i;
    d.nodes[st[0]][8].forEach(function(e,j){if(e[0]>=0&&st[2][j]) (incoming[e[0]]=incoming[e[0]]||[]).push([st[0],e[1],st[2][j],i]);});});};
Explorer.prototype.ranAt=function(k){this.index(); return k in this.stepOf?this.stepOf[k]:-1;};
Explorer.prototype.terms=function(s){this.index();  // what arrived at fan-in, as terms
  return (this.incoming[this.d.steps[s][0]]||[]).filter(function(t){return t[3]<s;});};
Explorer.prototype.showStep=function(p,s,head){var self=this, d=this.d, st=d.steps[s], n=d.nodes[st[0]];
  p.appendChild(el('div',(head?'':'in the replay: ')+'step '+(s+1)+' of '+d.steps.length+(d.call?' ('+d.call+')':''),'gv-sec'));
  var terms=this.terms(s);
  st[1].forEach(function(g,i){var e=el('div'); e.appendChild(el('b','received'+(st[1].length>1?' ['+i+']':'')+': '));
    e.appendChild(el('span',grad(g))); p.appendChild(e);});
  if(terms.length>1){var e=el('div','= '+terms.map(function(t){return brief(t[2])+' from '+d.nodes[t[0]][0]+' n'+t[0];}).join(' + '));
    e.className='gv-terms'; p.appendChild(e);}
  if(n[6]){var leaf=(n[6][0]||'the leaf')+'.grad';  // AccumulateGrad: the leaf's .grad, before and after
    p.appendChild(el('div','writes '+leaf+(st[4]?' = '+grad(st[4]):st[1][0]?' = '+grad(st[1][0]):'')));
    p.appendChild(el('div',leaf+' before this backward: '+(st[3]?grad(st[3])+' (the new gradient is added to it)':'None')));
    p.appendChild(el('div','is_leaf True, requires_grad True'));}
  st[2].forEach(function(g,j){var t=n[8][j]; if(!t||t[0]<0) return; var e=el('div');
    e.appendChild(el('b','sent to '+self.who(t[0])+': ')); e.appendChild(el('span',grad(g))); p.appendChild(e);});
  var saved=n[7].filter(function(x){return x[2]!=='scalar';});
  if(saved.length) p.appendChild(el('div','read its saved tensors ('+saved.map(function(x){return x[0];}).join(', ')+')'+
    (saved.some(function(x){return x[6].indexOf('freed')===0;})?', then freed them':'')));};
Explorer.prototype.step=function(dir){var d=this.d, N=d.steps.length, was=this.k;
  this.k=Math.max(0,Math.min(N,this.k+dir));
  this.clear('gv-run'); this.clear('gv-flow');
  (this.labels||[]).forEach(function(t){t.remove();}); this.labels=[];
  if(this.k<was){this.clear('gv-done'); for(var i=0;i<this.k-1;i++) this.done(i);}  // back: mark again
  else for(var j=Math.max(0,was-1);j<this.k-1;j++) this.done(j);  // forward: only what just ran
  this.stepno.textContent='step '+this.k+' of '+N;
  if(this.k===0){this.panelStart('Replay: press Step'); return;}
  var s=this.k-1, st=d.steps[s], n=d.nodes[st[0]], g=this.box(['n',st[0]]);
  if(g){this.mark(g,'gv-run'); if(this.fig.gvCenter) this.fig.gvCenter(g, true);}
  var self=this; n[8].forEach(function(e,j){if(e[0]<0) return; var to=d.nodes[e[0]][5], from=n[5];
    (self.edges[to+'->'+from]||[]).forEach(function(eg){self.mark(eg,'gv-flow'); self.label(eg,brief(st[2][j]));});});
  // and what arrived: each earlier node's contribution, on its edge (the terms summed at fan-in)
  this.terms(s).forEach(function(t){(self.edges[n[5]+'->'+d.nodes[t[0]][5]]||[]).forEach(function(eg){
    self.mark(eg,'gv-flow'); self.label(eg,brief(t[2]));});});
  var p=this.panelStart(this.title(st[0])); this.showStep(p,s,true);};
Explorer.prototype.done=function(i){var b=this.box(['n',this.d.steps[i][0]]); if(b) this.mark(b,'gv-done');};
Explorer.prototype.title=function(k){var n=this.d.nodes[k];
  return (n[6]&&n[6][0]?n[0]+' → '+n[6][0]:n[0]+(n[1].length?' → '+n[1].join(', '):''))+'  (n'+k+')';};
Explorer.prototype.label=function(eg,text){var path=eg.querySelector('path'); if(!path||!text) return;
  var L=path.getTotalLength(), pt=path.getPointAtLength(L/2);
  var t=document.createElementNS('http://www.w3.org/2000/svg','text'); t.setAttribute('x',pt.x+4); t.setAttribute('y',pt.y);
  t.setAttribute('class','gv-edgeval'); t.textContent=text; eg.appendChild(t); this.labels.push(t);};
Explorer.prototype.play=function(b){var self=this;
  if(this.timer){clearInterval(this.timer); this.timer=null; b.textContent='Play'; b.setAttribute('aria-pressed','false'); return;}
  if(this.k>=this.d.steps.length) this.k=0;
  b.textContent='Pause'; b.setAttribute('aria-pressed','true');
  this.timer=setInterval(function(){self.step(1); if(self.k>=self.d.steps.length) self.play(b);},700);};
Explorer.prototype.start=function(){  // --nan's finding: selected as the page opens
  if(this.d.focus>=0){this.select(['n',this.d.focus],true);
    var p=this.panel, e=el('div','The first NaN of the run started here.','gv-sec'); p.insertBefore(e,p.children[1]||null);}};
document.querySelectorAll('.gv-figure').forEach(function(fig){var script=fig.querySelector('script.gv-data');
  if(!script||fig.gvExplorer) return; try{fig.gvExplorer=new Explorer(fig, JSON.parse(script.textContent)); fig.gvExplorer.start();}
  catch(e){var p=fig.querySelector('.gv-details'); if(p) p.textContent='The explorer could not start: '+e;}});
})();
"""
