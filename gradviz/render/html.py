"""HTML: the tensor table a notebook shows, and the self-contained report page.

Everything here is text in, text out: scripting's plain results (``TensorInfo``),
pictures already drawn as SVG, and explanations as dicts. The page carries its own
styles and its few lines of script (pan and zoom of the pictures); it loads nothing
from anywhere, so it works offline and can be mailed as one file.
"""
import html
import io
import itertools
import keyword
import re
import tokenize
from dataclasses import dataclass, field
from typing import Optional

from . import explorer
from .values import COLUMNS, tensor_rows


def escape(text) -> str:
    return html.escape(str(text), quote=True)


# --------------------------------------------------------------------------- the tensor table


def tensor_table(tensors, caption: Optional[str] = None) -> str:
    """An HTML table of named tensors (the same columns and texts as the terminal's)."""
    head = "".join(f"<th>{escape(c)}</th>" for c in COLUMNS)
    body = []
    for row, t in zip(tensor_rows(tensors), tensors):
        classes = ["leaf" if t.is_leaf and t.requires_grad else "", "nograd" if not t.requires_grad else ""]
        cells = []
        for col, text in zip(COLUMNS, row):
            cls = f' class="{col}"' if col in ("name", "grad_fn", "grad", "data") else ""
            cells.append(f"<td{cls}>{escape(text)}</td>")
        row_class = " ".join(c for c in classes if c)
        attr = f' class="{row_class}"' if row_class else ""
        body.append(f"<tr{attr}>{''.join(cells)}</tr>")
    cap = f"<caption>{escape(caption)}</caption>" if caption else ""
    return (f'<table class="gv-tensors">{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table>")


# --------------------------------------------------------------------------- code


_TOKEN_CLASS = {tokenize.COMMENT: "c", tokenize.STRING: "s", tokenize.NUMBER: "n"}


def highlight(code: str) -> list:
    """The code's lines as HTML, with keywords, strings, comments and numbers marked.
    Code Python cannot tokenize (a notebook's IPython, a syntax error) stays plain."""
    lines = code.split("\n")
    marks = []  # (row, col, end_row, end_col, class)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code).readline):
            cls = _TOKEN_CLASS.get(tok.type)
            if tok.type == tokenize.NAME and keyword.iskeyword(tok.string):
                cls = "k"
            if cls:
                marks.append((tok.start[0] - 1, tok.start[1], tok.end[0] - 1, tok.end[1], cls))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        marks = [m for m in marks if m[0] == m[2]]
    out = []
    by_row = {}
    for m in marks:
        if m[0] == m[2]:
            by_row.setdefault(m[0], []).append(m)
        else:  # a string over several lines: mark each line's part
            for row in range(m[0], m[2] + 1):
                start = m[1] if row == m[0] else 0
                end = m[3] if row == m[2] else len(lines[row]) if row < len(lines) else 0
                by_row.setdefault(row, []).append((row, start, row, end, m[4]))
    for row, line in enumerate(lines):
        pos, parts = 0, []
        for _, start, _, end, cls in sorted(by_row.get(row, [])):
            if start < pos:
                continue
            parts.append(escape(line[pos:start]))
            parts.append(f'<span class="{cls}">{escape(line[start:end])}</span>')
            pos = end
        parts.append(escape(line[pos:]))
        out.append("".join(parts))
    return out


def code_block(code: str, first_line: int = 1, marked: Optional[int] = None) -> str:
    """Numbered lines of code; line ``marked`` (numbered as shown) is highlighted."""
    code = code.rstrip("\n")
    rows = []
    for k, line in enumerate(highlight(code)):
        number = first_line + k
        cls = ' class="marked"' if number == marked else ""
        rows.append(f'<span{cls}><i>{number}</i>{line or " "}</span>')
    return f'<pre class="gv-code">{"".join(rows)}</pre>'


def text_block(text: str, cls: str) -> str:
    return f'<pre class="{cls}">{escape(text.rstrip(chr(10)))}</pre>'


# --------------------------------------------------------------------------- pictures


@dataclass
class Figure:
    """A graph for the page: its SVG, or why there is none."""

    caption: str
    svg: Optional[str] = None
    problem: Optional[str] = None  # e.g. over the pixel budget
    notes: list = field(default_factory=list)
    explore: Optional[dict] = None  # the explorer's data (render.explorer.data): search, details, replay
    layers: list = field(default_factory=list)  # (depth, svg): the picture with more or fewer modules open


_PROLOG = re.compile(r"^\s*(<\?xml[^>]*>\s*)?(<!DOCTYPE[^>]*>\s*)?(<!--.*?-->\s*)*", re.S)
_IDS = re.compile(r'\b(id|href|xlink:href)="(#?)([^"]+)"')


def inline_svg(svg: str, prefix: str) -> str:
    """Graphviz's SVG ready to sit in a page: no XML prolog, ids made unique per picture."""
    svg = _PROLOG.sub("", svg, count=1)
    return _IDS.sub(lambda m: f'{m.group(1)}="{m.group(2)}{prefix}{m.group(3)}"', svg)


def figure(fig: Figure, number: int) -> str:
    notes = "".join(f"<li>{escape(n)}</li>" for n in fig.notes)
    notes = f'<ul class="gv-notes">{notes}</ul>' if notes else ""
    if fig.svg is None:
        body = f'<p class="gv-problem">No picture: {escape(fig.problem or "nothing to draw")}</p>'
        return f'<figure class="gv-figure">{body}<figcaption>{escape(fig.caption)}</figcaption>{notes}</figure>'
    # The controls are hidden until the page's script runs and shows them: a notebook that runs
    # no script (not trusted) shows the picture alone, not buttons that do nothing.
    tools = ('<div class="gv-tools" hidden><button data-zoom="in" title="zoom in">+</button>'
             '<button data-zoom="out" title="zoom out">&minus;</button>'
             '<button data-zoom="fit" title="fit the picture">fit</button>'
             '<button data-zoom="1" title="actual size">1:1</button>'
             '<span>drag to pan, wheel or +/&minus; to zoom</span></div>')
    svg = inline_svg(fig.svg, f"g{number}-")
    if fig.explore is None:
        return (f'<figure class="gv-figure">{tools}<div class="gv-viewport">{svg}</div>'
                f"<figcaption>{escape(fig.caption)}</figcaption>{notes}</figure>")
    layers = "".join(f'<template class="gv-layer" data-depth="{int(depth)}">'
                     f'{inline_svg(other, f"g{number}-d{int(depth)}-")}</template>' for depth, other in fig.layers)
    return (f'<figure class="gv-figure gv-explorer">{tools}{explorer.block(number, fig.explore)}'
            f'<div class="gv-body"><div class="gv-viewport">{svg}</div>{explorer.details_panel()}</div>{layers}'
            f"<figcaption>{escape(fig.caption)}</figcaption>{notes}</figure>")


def notebook_figure(svg: str, data: dict, caption: str = "") -> str:
    """One picture as the explorer, standing alone in a notebook's output: its styles
    scoped to it, its script guarded against running twice on one figure."""
    number = next(_NOTEBOOK_FIGURES)
    fig = figure(Figure(caption, svg=svg, explore=data), 100_000 + number)
    return (f'<div class="gv-nb"><style>{_FIGURE_CSS}{explorer.CSS}</style>{fig}'
            f"<script>{_JS}{explorer.SCRIPT}</script></div>")


_NOTEBOOK_FIGURES = itertools.count(1)  # each output's picture its own ids


class TensorTable:
    """A tensor table for a notebook: HTML, and the terminal's table as text/plain."""

    def __init__(self, tensors, caption: str, text: str):
        self.tensors, self.caption, self.text = tensors, caption, text

    def _repr_mimebundle_(self, include=None, exclude=None):
        return {"text/html": tensor_table(self.tensors, self.caption), "text/plain": self.text}


# --------------------------------------------------------------------------- explanations


def explanation(d: dict) -> str:
    """explain's answer (``Explanation`` / ``Diagnosis`` as a dict): title, cause, fix."""
    if not d:
        return ""
    title = escape(d.get("title") or "")
    ident = f' <span class="gv-id">{escape(d["id"])}</span>' if d.get("id") else ""
    parts = [f'<div class="gv-explain"><h4>{title}{ident}</h4><p>{escape(d.get("cause") or "")}</p>']
    fix = d.get("fix") or {}
    if fix.get("text"):
        parts.append(f'<p class="gv-fix"><b>Fix:</b> {escape(fix["text"])}</p>')
    if fix.get("before") or fix.get("after"):
        parts.append('<div class="gv-beforeafter">')
        if fix.get("before"):
            label = "before (an example, not your code)" if fix.get("example") else "before"
            parts.append(f'<div><span>{label}</span>{code_block(fix["before"])}</div>')
        if fix.get("after"):
            parts.append(f'<div><span>after</span>{code_block(fix["after"])}</div>')
        parts.append("</div>")
    others = [c for c in d.get("candidates") or [] if c.get("id")]
    if others:
        items = "".join(f"<li><code>{escape(c['id'])}</code>: {escape(_why_not(c))}</li>" for c in others)
        parts.append(f'<details><summary>Same message, other causes</summary><ul>{items}</ul></details>')
    parts.append("</div>")
    return "".join(parts)


def _why_not(candidate: dict) -> str:
    if candidate.get("ruled_out"):
        return f"ruled out: {candidate['ruled_out']}"
    return candidate.get("question") or candidate.get("title") or ""


# --------------------------------------------------------------------------- the page


@dataclass
class Section:
    """One part of the report: a cell, or the graph of the whole run."""

    title: str
    anchor: str
    code: str = ""
    first_line: int = 1
    error_line: Optional[int] = None  # numbered as the code is shown
    notes: list = field(default_factory=list)
    stdout: str = ""
    error: Optional[str] = None  # the user's traceback
    explanation: Optional[dict] = None
    tensors: tuple = ()
    tensors_title: str = ""
    figures: list = field(default_factory=list)  # of Figure
    text: list = field(default_factory=list)  # paragraphs, e.g. the second backward's outcome
    blocks: list = field(default_factory=list)  # (label, preformatted text): --nan's finding, --memory's ledger
    failed: bool = False


def section(sec: Section, first_figure: int) -> str:
    parts = [f'<section class="gv-cell{" failed" if sec.failed else ""}" id="{escape(sec.anchor)}">',
             f'<h2><a href="#{escape(sec.anchor)}">{escape(sec.title)}</a></h2>']
    if sec.code:
        parts.append(code_block(sec.code, sec.first_line, sec.error_line))
    if sec.notes:
        parts.append('<ul class="gv-notes">' + "".join(f"<li>{escape(n)}</li>" for n in sec.notes) + "</ul>")
    if sec.stdout:
        parts.append('<div class="gv-label">output</div>' + text_block(sec.stdout, "gv-stdout"))
    if sec.error:
        parts.append('<div class="gv-label error">error</div>' + text_block(sec.error, "gv-error"))
        parts.append(explanation(sec.explanation or {}))
    for paragraph in sec.text:
        parts.append(f'<p class="gv-text">{escape(paragraph)}</p>')
    for label, text in sec.blocks:
        parts.append(f'<div class="gv-label">{escape(label)}</div>' + text_block(text, "gv-stdout"))
    if sec.tensors_title:
        if sec.tensors:
            parts.append(f'<details class="gv-table" open><summary>{escape(sec.tensors_title)} '
                         f'({len(sec.tensors)})</summary>{tensor_table(sec.tensors)}</details>')
        else:
            parts.append(f'<p class="gv-muted">{escape(sec.tensors_title)}: none</p>')
    for k, fig in enumerate(sec.figures):
        parts.append(figure(fig, first_figure + k))
    parts.append("</section>")
    return "".join(parts)


def page(title: str, subtitle: str, summary: list, sections: list) -> str:
    """The whole report: a header, a table of contents, then the sections."""
    toc = "".join(f'<li class="{"failed" if s.failed else ""}"><a href="#{escape(s.anchor)}">{escape(s.title)}</a>'
                  "</li>" for s in sections)
    body, figures = [], 0
    for s in sections:
        body.append(section(s, figures))
        figures += len(s.figures)
    summary_html = "".join(f"<li>{escape(line)}</li>" for line in summary)
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)}</title><style>{_CSS}{explorer.CSS}</style></head><body>"
            f'<header><h1>{escape(title)}</h1><p class="gv-sub">{escape(subtitle)}</p>'
            f'<ul class="gv-summary">{summary_html}</ul><nav><ol>{toc}</ol></nav></header>'
            f'<main>{"".join(body)}</main>'
            f"<footer>Made by gradviz. This page is self-contained: it loads nothing from the network.</footer>"
            f"<script>{_JS}{explorer.SCRIPT}</script></body></html>\n")


_CSS = """
:root{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--red:#cf222e;--blue:#0969da}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:var(--fg);background:var(--soft)}
header,main,footer{max-width:1200px;margin:0 auto;padding:0 24px}
header{padding-top:24px}
h1{font-size:26px;margin:0 0 4px}
.gv-sub{color:var(--muted);margin:0 0 12px;font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.gv-summary{margin:0 0 12px;padding-left:20px}
nav ol{display:flex;flex-wrap:wrap;gap:6px;list-style:none;padding:0;margin:0 0 16px}
nav li a{display:block;padding:2px 10px;border:1px solid var(--line);border-radius:12px;background:var(--bg);
  color:var(--fg);text-decoration:none;font-size:13px}
nav li.failed a{border-color:var(--red);color:var(--red)}
.gv-cell{background:var(--bg);border:1px solid var(--line);border-radius:8px;margin:0 0 18px;padding:14px 18px}
.gv-cell.failed{border-left:4px solid var(--red)}
.gv-cell h2{font-size:17px;margin:0 0 10px}
.gv-cell h2 a{color:inherit;text-decoration:none}
pre{margin:0 0 10px;padding:10px 12px;background:var(--soft);border-radius:6px;overflow:auto;
  font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.gv-code>span{display:block}
.gv-code>span.marked{background:#ffebe9;box-shadow:inset 3px 0 var(--red)}
.gv-code i{display:inline-block;width:3.2em;color:var(--muted);font-style:normal;user-select:none;text-align:right;
  padding-right:1em}
.gv-code .k{color:#cf222e}.gv-code .s{color:#0a3069}.gv-code .c{color:#6e7781;font-style:italic}.gv-code .n{color:#0550ae}
.gv-label{font-size:12px;color:var(--muted);text-transform:uppercase;letter-spacing:.04em;margin:6px 0 2px}
.gv-label.error{color:var(--red)}
.gv-error{background:#fff1f0;color:#82071e;white-space:pre-wrap}
.gv-stdout{white-space:pre-wrap}
.gv-notes{color:var(--muted);font-size:13px;margin:0 0 10px;padding-left:20px}
.gv-muted,.gv-text{color:var(--muted);font-size:14px}
.gv-text{color:var(--fg)}
.gv-explain{border:1px solid #f0c0c0;border-radius:6px;padding:8px 14px;margin:0 0 12px;background:#fffafa}
.gv-explain h4{margin:4px 0 6px;font-size:15px}
.gv-id{font:12px ui-monospace,monospace;color:var(--muted);font-weight:normal}
.gv-fix{margin:6px 0}
.gv-beforeafter{display:grid;grid-template-columns:1fr 1fr;gap:10px}
.gv-beforeafter span{font-size:12px;color:var(--muted)}
details.gv-table{margin:0 0 12px}
summary{cursor:pointer;font-weight:600;font-size:14px;margin:0 0 6px}
.gv-tensors{border-collapse:collapse;font:13px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;width:100%}
.gv-tensors th{text-align:left;border-bottom:2px solid var(--line);padding:4px 8px;white-space:nowrap;
  font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
.gv-tensors td{border-bottom:1px solid #eaeef2;padding:3px 8px;vertical-align:top;white-space:nowrap}
.gv-tensors td.grad,.gv-tensors td.data{white-space:pre-wrap}
.gv-tensors td.name{font-weight:600}
.gv-tensors tr.leaf td.name{color:#0550ae}
.gv-tensors tr.nograd td{color:var(--muted)}
footer{color:var(--muted);font-size:12px;padding-bottom:30px}
@media print{.gv-tools{display:none}.gv-viewport{border:none}}
"""

# The pictures' styles: on the report's page, and scoped to a notebook's output (.gv-nb).
_FIGURE_CSS = """
.gv-nb{--fg:#1f2328;--muted:#656d76;--line:#d0d7de;--bg:#fff;--soft:#f6f8fa;--red:#cf222e;--blue:#0969da;
  color:var(--fg);font:14px/1.5 -apple-system,"Segoe UI",Helvetica,Arial,sans-serif}
.gv-figure{margin:4px 0 12px}
.gv-viewport{border:1px solid var(--line);border-radius:6px;overflow:hidden;background:#fff;cursor:grab;
  touch-action:none;position:relative}
.gv-viewport.dragging{cursor:grabbing}
.gv-viewport svg{display:block;width:100%;height:100%}
.gv-tools{display:flex;gap:6px;align-items:center;margin:0 0 6px;font-size:12px;color:var(--muted)}
.gv-tools button{font:13px ui-monospace,monospace;min-width:30px;padding:2px 8px;border:1px solid var(--line);
  border-radius:5px;background:var(--bg);cursor:pointer}
.gv-figure figcaption{font-size:13px;color:var(--muted);margin-top:4px}
.gv-problem{color:var(--red)}
"""
_CSS += _FIGURE_CSS

_JS = """
(function(){
function setup(fig){
  var vp=fig.querySelector('.gv-viewport'), svg=vp&&vp.querySelector('svg'); if(!svg||fig.gvReady) return;
  fig.gvReady=true;  // a notebook runs this again for every output
  fig.querySelectorAll('.gv-tools').forEach(function(t){t.hidden=false;});
  var full, natural, naturalW, view;
  function read(){  // the picture's own size; again when the explorer puts another picture in
    svg=vp.querySelector('svg');
    if(!svg.gvFull){var vb=svg.viewBox.baseVal; svg.gvFull={x:vb.x,y:vb.y,w:vb.width,h:vb.height};  // before any zoom
      svg.gvNatural=[svg.width.baseVal.valueInSpecifiedUnits?svg.width.baseVal.value:vb.width,
                     svg.height.baseVal.valueInSpecifiedUnits?svg.height.baseVal.value:vb.height];
      svg.removeAttribute('width'); svg.removeAttribute('height');}
    full=svg.gvFull; naturalW=svg.gvNatural[0]; natural=svg.gvNatural[1];}
  read();
  function fitHeight(){
    var w=vp.clientWidth||naturalW, h=Math.min(natural*Math.min(1,w/naturalW), window.innerHeight*0.75);
    if(fig.classList.contains('gv-explorer')) h=Math.max(h,Math.min(640,window.innerHeight*0.7));  // room to explore
    vp.style.height=Math.max(120,Math.round(h))+'px';
  }
  fitHeight();
  view={x:full.x,y:full.y,w:full.w,h:full.h};
  function apply(){svg.setAttribute('viewBox',view.x+' '+view.y+' '+view.w+' '+view.h);}
  function fit(){view={x:full.x,y:full.y,w:full.w,h:full.h};apply();}
  function zoom(f,cx,cy){
    var r=vp.getBoundingClientRect(); if(cx===undefined){cx=r.width/2;cy=r.height/2;}
    var s=Math.max(view.w/r.width,view.h/r.height);
    var px=view.x+(cx-(r.width-view.w/s)/2)*s, py=view.y+(cy-(r.height-view.h/s)/2)*s;
    var nw=view.w/f, nh=view.h/f; if(nw>full.w*8||nw<full.w/200) return;
    view={x:px-(px-view.x)/f,y:py-(py-view.y)/f,w:nw,h:nh}; apply();
  }
  function actual(){var r=vp.getBoundingClientRect(); var s=naturalW/full.w;
    view={x:full.x,y:full.y,w:r.width/s,h:r.height/s}; apply();}
  fig.querySelectorAll('button[data-zoom]').forEach(function(b){b.addEventListener('click',function(){
    var z=b.getAttribute('data-zoom'); if(z==='in')zoom(1.4); else if(z==='out')zoom(1/1.4);
    else if(z==='fit')fit(); else actual();});});
  vp.addEventListener('wheel',function(e){e.preventDefault();var r=vp.getBoundingClientRect();
    zoom(e.deltaY<0?1.15:1/1.15,e.clientX-r.left,e.clientY-r.top);},{passive:false});
  var drag=null;
  vp.addEventListener('pointerdown',function(e){drag={x:e.clientX,y:e.clientY,v:{x:view.x,y:view.y}};
    vp.classList.add('dragging');vp.setPointerCapture(e.pointerId);});
  vp.addEventListener('pointermove',function(e){if(!drag)return;var r=vp.getBoundingClientRect();
    var s=Math.max(view.w/r.width,view.h/r.height);
    view.x=drag.v.x-(e.clientX-drag.x)*s; view.y=drag.v.y-(e.clientY-drag.y)*s; apply();});
  function end(){drag=null;vp.classList.remove('dragging');}
  vp.addEventListener('pointerup',end); vp.addEventListener('pointercancel',end);
  vp.addEventListener('dblclick',function(e){var r=vp.getBoundingClientRect();zoom(1.6,e.clientX-r.left,e.clientY-r.top);});
  fig.gvReset=function(){read(); fit();};  // a new picture in the viewport: seen whole
  // The explorer brings a node into view: at 1:1 when the picture is shrunk too small to read.
  fig.gvCenter=function(el,keep){var r=vp.getBoundingClientRect(), b=el.getBoundingClientRect();
    var s=Math.max(view.w/r.width,view.h/r.height), small=full.w/naturalW;
    if(!keep&&s>small*1.5){var cx=view.x+(b.left+b.width/2-r.left-(r.width-view.w/s)/2)*s,
      cy=view.y+(b.top+b.height/2-r.top-(r.height-view.h/s)/2)*s;
      view={x:cx-r.width*small/2,y:cy-r.height*small/2,w:r.width*small,h:r.height*small};apply();return;}
    if(keep&&b.left>=r.left&&b.right<=r.right&&b.top>=r.top&&b.bottom<=r.bottom) return;  // stepping: only when out of sight
    view.x+=(b.left+b.width/2-(r.left+r.width/2))*s; view.y+=(b.top+b.height/2-(r.top+r.height/2))*s; apply();};
  window.addEventListener('resize',fitHeight);
}
document.querySelectorAll('.gv-figure').forEach(setup);
})();
"""
