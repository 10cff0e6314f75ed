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

Schema (lists, for size: a 100,000-node graph):
  node: [name, output names, module, "file:line", code line, drawn, leaf, saved, next, formulas]
    leaf: [name, shape, dtype, grad shape or null] or null
    saved: [[attribute, tensor name, kind, shape, dtype, bytes, state]]  (state: "kept",
           "freed by backward at x.py:9", "recomputed in backward", ...)
    next: [[target node index or -1, input_nr]]
    formulas: [[input, text]]
  op: [name, module, "file:line", code line, drawn, input names, output names, node index or -1]
  step: [node index, arriving, leaving]; a gradient: [shape, dtype, norm, min, max, mean, values or null]
"""
import html
import json
import linecache
import os

from .jsonout import _bytes as tensor_bytes  # TODO after merge: public name

MAX_CODE = 160  # characters of a line of code kept per node


def data(snap, graph=None, title="") -> dict:
    """The explorer's data for ``snap``, drawn as ``graph`` (a dot.Graph: which box stands
    for each node), as a dict of plain lists."""
    drawn = graph.drawn_as if graph is not None else (lambda item: None)
    code = _CodeLines()
    index = {n.id: k for k, n in enumerate(snap.nodes)}
    nodes = [_node(n, index, drawn, code) for n in snap.nodes]
    values = {v.id: v.name for v in snap.values}
    ops = [[op.name, op.module, _where(op.site), code(op.site), drawn(op.id), [values.get(v, v) for v in op.inputs],
            [values.get(v, v) for v in op.outputs], index.get(op.node, -1)] for op in snap.ops]
    steps = [[index.get(s.node, -1), [_stats(g) for g in s.grads_in], [_stats(g) for g in s.grads_out]]
             for s in snap.replay]
    call = snap.backward_calls[-1] if snap.backward_calls else None
    return {"title": title, "nodes": nodes, "ops": ops, "steps": steps, "ran": snap.replay_ran or len(steps),
            "call": f"{call.kind} at {_where(call.site)}" if call is not None and call.site else
            (call.kind if call is not None else "")}


def _node(n, index, drawn, code):
    leaf = n.leaf
    leaf_info = None if leaf is None else [leaf.name, list(leaf.shape), leaf.dtype,
                                           None if leaf.grad is None else list(leaf.grad.shape)]
    saved = [[x.attr, x.tensor_name, x.kind, None if x.shape is None else list(x.shape), x.dtype,
              tensor_bytes(x.shape, x.dtype) if x.kind in ("tensor", "freed") else None, _state(x, n)]
             for x in n.saved if x.is_tensor]
    nxt = [[-1 if e.target is None else index[e.target], e.output_nr] for e in n.edges]
    return [n.label_name, list(n.output_names), n.module, _where(n.site), code(n.site), drawn(n.id), leaf_info,
            saved, nxt, [list(f) for f in getattr(n, "formulas", ())]]


def _state(x, node):
    if x.recomputed:
        return "recomputed in backward (checkpoint)"
    if x.freed:
        call = node.freed_by
        return f"freed by {call.kind} at {_where(call.site)}" if call is not None and call.site else "freed"
    if x.stale:
        return f"modified in place since it was saved (v{x.saved_version}, now v{x.current_version})"
    return "kept" if x.kind == "tensor" else x.kind


def _stats(g):
    if g is None:
        return None
    return [list(g.shape), g.dtype, _number(g.norm), _number(g.min), _number(g.max), _number(g.mean),
            None if g.values is None else [_number(v) for v in g.values]]


def _number(x):
    """A float as JSON can carry it: NaN and infinities as strings."""
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    return float(f"{x:.6g}")


def _where(site):
    return f"{os.path.basename(str(site[0]))}:{site[1]}" if site else ""


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
    replay = (f'<div class="gv-replay" role="group" aria-label="replay of the backward pass">'
              f'<button type="button" data-act="back">Back</button>'
              f'<button type="button" data-act="step">Step</button>'
              f'<button type="button" data-act="play">Play</button>'
              f'<span class="gv-stepno" role="status">step 0 of {steps}</span></div>') if steps else ""
    text = json.dumps(payload, separators=(",", ":"), allow_nan=False).replace("<", "\\u003c")
    return (f'<div class="gv-explore"><label class="gv-search"><span>Find</span>'
            f'<input type="search" placeholder="name, module, op or line" aria-label="Search the graph">'
            f'</label><span class="gv-matches" role="status" aria-live="polite"></span>{replay}</div>'
            f'<script type="application/json" class="gv-data" id="gv-data-{number}">{text}</script>')


def details_panel() -> str:
    return ('<aside class="gv-details" aria-live="polite"><p class="gv-hint">Click a node, or search, to see '
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
.gv-replay{display:flex;gap:6px;align-items:center}
.gv-replay button{font:13px -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;padding:3px 12px;
  border:1px solid var(--line);border-radius:5px;background:var(--bg);cursor:pointer}
.gv-replay button[aria-pressed=true]{background:#ddf4ff;border-color:var(--blue)}
.gv-body{display:grid;grid-template-columns:minmax(0,1fr) 340px;gap:10px}
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

function Explorer(fig, d){
  var self=this; this.fig=fig; this.d=d; this.svg=fig.querySelector('.gv-viewport svg');
  this.panel=fig.querySelector('.gv-details'); this.k=0; this.timer=null; this.marks=[];
  this.boxes={}; this.edges={};
  this.svg.querySelectorAll('g.node').forEach(function(g){var t=g.querySelector('title');
    if(t) self.boxes[t.textContent]=g;});
  this.svg.querySelectorAll('g.edge').forEach(function(g){var t=g.querySelector('title');
    if(t) (self.edges[t.textContent]=self.edges[t.textContent]||[]).push(g);});
  this.members={};  // drawn box -> the items it stands for
  d.nodes.forEach(function(n,k){if(n[5]) (self.members[n[5]]=self.members[n[5]]||[]).push(['n',k]);});
  d.ops.forEach(function(o,k){if(o[4]) (self.members[o[4]]=self.members[o[4]]||[]).push(['f',k]);});
  this.users=d.nodes.map(function(){return [];});
  d.nodes.forEach(function(n,k){n[8].forEach(function(e){if(e[0]>=0) self.users[e[0]].push(k);});});
  this.svg.addEventListener('click',function(e){var g=e.target.closest('g.node'); if(!g) return;
    var t=g.querySelector('title'), items=t&&self.members[t.textContent]; if(items) self.select(items[0],false);});
  var box=fig.querySelector('input[type=search]'); this.status=fig.querySelector('.gv-matches');
  this.found=[]; this.at=-1;
  box.addEventListener('input',function(){self.search(box.value);});
  box.addEventListener('keydown',function(e){
    if(e.key==='Enter'||e.key==='ArrowDown'){e.preventDefault(); self.next(1);}
    else if(e.key==='ArrowUp'){e.preventDefault(); self.next(-1);}});
  fig.querySelectorAll('.gv-replay button').forEach(function(b){b.addEventListener('click',function(){
    var a=b.getAttribute('data-act'); if(a==='step') self.step(1); else if(a==='back') self.step(-1); else self.play(b);});});
  this.stepno=fig.querySelector('.gv-stepno');
}
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
Explorer.prototype.mark=function(g,cls){g.classList.add(cls); this.marks.push([g,cls]);};
Explorer.prototype.clear=function(cls){this.marks=this.marks.filter(function(m){
  if(m[1]===cls){m[0].classList.remove(cls); return false;} return true;});};
Explorer.prototype.select=function(it,center){var self=this; this.clear('gv-sel'); this.clear('gv-path');
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
Explorer.prototype.showNode=function(k){var self=this, n=this.d.nodes[k];
  var p=this.panelStart(n[0]+(n[1].length?' → '+n[1].join(', '):'')+'  (n'+k+')');
  this.line(p,'module',n[2]); this.line(p,'line',n[3]); if(n[4]) p.appendChild(el('pre',n[4]));
  if(n[6]){var L=n[6]; this.line(p,'leaf',(L[0]||'a tensor')+' '+shape(L[1])+' '+L[2]);
    this.line(p,'.grad',L[3]?shape(L[3]):'None'); this.line(p,'is_leaf','True'); this.line(p,'requires_grad','True');}
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
Explorer.prototype.ranAt=function(k){var s=this.d.steps; for(var i=0;i<s.length;i++) if(s[i][0]===k) return i; return -1;};
Explorer.prototype.terms=function(s){var d=this.d, k=d.steps[s][0], out=[];  // what arrived at fan-in, as terms
  for(var i=0;i<s;i++){var st=d.steps[i], n=d.nodes[st[0]];
    n[8].forEach(function(e,j){if(e[0]===k&&st[2][j]) out.push([st[0],e[1],st[2][j]]);});}
  return out;};
Explorer.prototype.showStep=function(p,s,head){var self=this, d=this.d, st=d.steps[s], n=d.nodes[st[0]];
  p.appendChild(el('div',(head?'':'in the replay: ')+'step '+(s+1)+' of '+d.steps.length+(d.call?' ('+d.call+')':''),'gv-sec'));
  var terms=this.terms(s);
  st[1].forEach(function(g,i){var e=el('div'); e.appendChild(el('b','received'+(st[1].length>1?' ['+i+']':'')+': '));
    e.appendChild(el('span',grad(g))); p.appendChild(e);});
  if(terms.length>1){var e=el('div','= '+terms.map(function(t){return brief(t[2])+' from '+d.nodes[t[0]][0]+' n'+t[0];}).join(' + '));
    e.className='gv-terms'; p.appendChild(e);}
  if(n[6]) p.appendChild(el('div','writes '+(n[6][0]||'the leaf')+'.grad'+(st[1][0]?' = '+grad(st[1][0]):'')));
  st[2].forEach(function(g,j){var t=n[8][j]; if(!t||t[0]<0) return; var e=el('div');
    e.appendChild(el('b','sent to '+self.who(t[0])+': ')); e.appendChild(el('span',grad(g))); p.appendChild(e);});
  var saved=n[7].filter(function(x){return x[2]!=='scalar';});
  if(saved.length) p.appendChild(el('div','read its saved tensors ('+saved.map(function(x){return x[0];}).join(', ')+')'+
    (saved.some(function(x){return x[6].indexOf('freed')===0;})?', then freed them':'')));};
Explorer.prototype.step=function(dir){var d=this.d, N=d.steps.length; this.k=Math.max(0,Math.min(N,this.k+dir));
  this.clear('gv-run'); this.clear('gv-done'); this.clear('gv-flow');
  this.svg.querySelectorAll('text.gv-edgeval').forEach(function(t){t.remove();});
  for(var i=0;i<this.k-1;i++){var b=this.box(['n',d.steps[i][0]]); if(b) this.mark(b,'gv-done');}
  this.stepno.textContent='step '+this.k+' of '+N;
  if(this.k===0){this.panelStart('Replay: press Step'); return;}
  var s=this.k-1, st=d.steps[s], n=d.nodes[st[0]], g=this.box(['n',st[0]]);
  if(g){this.mark(g,'gv-run'); if(this.fig.gvCenter) this.fig.gvCenter(g, true);}
  var self=this; n[8].forEach(function(e,j){if(e[0]<0) return; var to=d.nodes[e[0]][5], from=n[5];
    (self.edges[to+'->'+from]||[]).forEach(function(eg){self.mark(eg,'gv-flow'); self.label(eg,brief(st[2][j]));});});
  var p=this.panelStart(n[0]+(n[1].length?' → '+n[1].join(', '):'')+'  (n'+st[0]+')'); this.showStep(p,s,true);};
Explorer.prototype.label=function(eg,text){var path=eg.querySelector('path'); if(!path||!text) return;
  var L=path.getTotalLength(), pt=path.getPointAtLength(L/2);
  var t=document.createElementNS('http://www.w3.org/2000/svg','text'); t.setAttribute('x',pt.x+4); t.setAttribute('y',pt.y);
  t.setAttribute('class','gv-edgeval'); t.textContent=text; eg.appendChild(t);};
Explorer.prototype.play=function(b){var self=this;
  if(this.timer){clearInterval(this.timer); this.timer=null; b.textContent='Play'; b.setAttribute('aria-pressed','false'); return;}
  if(this.k>=this.d.steps.length) this.k=0;
  b.textContent='Pause'; b.setAttribute('aria-pressed','true');
  this.timer=setInterval(function(){self.step(1); if(self.k>=self.d.steps.length) self.play(b);},700);};
document.querySelectorAll('.gv-figure').forEach(function(fig){var script=fig.querySelector('script.gv-data');
  if(!script||fig.gvExplorer) return; try{fig.gvExplorer=new Explorer(fig, JSON.parse(script.textContent));}
  catch(e){var p=fig.querySelector('.gv-details'); if(p) p.textContent='The explorer could not start: '+e;}});
})();
"""
