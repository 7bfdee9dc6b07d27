"""Build the notebook series as a static site: ``build/site/index.html`` and one page per chapter.

    python scripts/build_html.py                 # every chapter → build/site/
    python scripts/build_html.py --out DIR       # somewhere else

Each chapter ``notebooks/NN_*.ipynb`` is converted as committed: the outputs are the ones
``make notebooks`` executed, nothing is re-executed. nbconvert's ``lab`` template does the
conversion, with three changes:

* Widget outputs. A ``msgmodel.course.widgets`` widget carries a static ``text/html`` rendering of
  its state next to its widget view; the page shows that rendering. Its callbacks are
  Python, so without a kernel the live widget could only show a slider that changes
  nothing, while the static rendering shows the same state and reads well offline. Any
  other widget is embedded as nbconvert does it (the notebook's saved widget state, drawn
  by ``@jupyter-widgets/html-manager`` from a CDN when the page is online), followed by
  its ``text/plain`` repr, which is hidden once the live widget has rendered.
* Links. ``NN_name.ipynb#anchor`` becomes ``NN_name.html#anchor``; a link that leaves the
  notebooks folder (``../msgmodel/core/compact.py``) gets one more ``../`` so that it still
  resolves from ``build/site/`` inside a checkout.
* A bar at the top of every page links to the series index.

``index.html`` lists the chapters in file order, each with its title (the notebook's
``# `` heading) and its first paragraph. The pages need no network: scripts nbconvert
loads from CDNs (RequireJS, MathJax, mermaid, the widget manager) simply do not run
offline, and every chapter still reads in full. Mermaid diagrams then show their source
(nbconvert would hide them until drawn).
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
from jinja2 import DictLoader
from nbconvert import HTMLExporter
from nbconvert.filters.markdown import markdown2html

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
SITE = ROOT / "build" / "site"
SERIES_TITLE = "msgmodel: one content model for agent chat messages"

TEMPLATE = r"""
{%- extends 'lab/index.html.j2' -%}

{% block extra_css %}
<style type="text/css">
.mm-site-nav{font-family:system-ui,sans-serif;font-size:14px;padding:8px 16px;border-bottom:1px solid #ddd;
  background:#f7f7f7}
.mm-site-nav a{text-decoration:none}
.mm-widget-wrap:has(.widget-subarea) .mm-widget-text{display:none}
/* nbconvert hides a mermaid diagram until mermaid.js (from a CDN) draws it; offline, show its source */
html body .jp-Mermaid:not(.jp-RenderedMermaid){display:block;border:1px dashed #bbb;border-radius:4px;
  padding:4px 8px;background:#fafafa}
html body .jp-Mermaid:not(.jp-RenderedMermaid)::before{display:block;color:#666;font:12px system-ui,sans-serif;
  content:"Diagram source (mermaid); it is drawn when the page can load mermaid.js."}
</style>
{% endblock extra_css %}

{%- block body_header -%}
{{ super() }}
<nav class="mm-site-nav"><a href="index.html">☰ {{ resources.mm_series_title | e }}</a>
 · {{ resources.mm_position | e }}</nav>
{%- endblock body_header -%}

{%- block data_widget_view scoped %}
{%- if 'text/html' in output.data %}
<div class="jp-RenderedHTMLCommon jp-RenderedHTML jp-OutputArea-output mm-widget-static {{ extra_class }}"
 data-mime-type="text/html">
{{ output.data['text/html'] }}
</div>
{%- else %}
<div class="mm-widget-wrap">
{{ super() }}
<div class="jp-RenderedText jp-OutputArea-output mm-widget-text" data-mime-type="text/plain">
<pre>{{ output.data['text/plain'] | escape_html }}</pre>
</div>
</div>
{%- endif %}
{%- endblock data_widget_view %}
"""


@dataclass(frozen=True)
class Chapter:
    source: Path
    title: str
    blurb_html: str

    @property
    def page(self) -> str:
        return f"{self.source.stem}.html"


def chapter_title(nb: nbformat.NotebookNode, source: Path) -> str:
    """The first ``# `` heading of the notebook's markdown."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            m = re.search(r"^# (.+)$", cell.source, re.M)
            if m:
                return m.group(1).strip()
    raise SystemExit(f"{source.name}: no '# Title' heading in any markdown cell")


def chapter_blurb(nb: nbformat.NotebookNode) -> str:
    """The first paragraph after the title, as HTML (empty when there is none)."""
    for cell in nb.cells:
        if cell.cell_type != "markdown" or not re.search(r"^# ", cell.source, re.M):
            continue
        after = re.split(r"^# .+$", cell.source, maxsplit=1, flags=re.M)[1]
        for para in re.split(r"\n\s*\n", after):
            para = para.strip()
            if para and not para.startswith(("#", "<!--")):
                return str(markdown2html(para))
        return ""
    return ""


_NB_LINK = re.compile(r'(href=")([\w.-]+)\.ipynb((?:#[^"]*)?")')
_UP_LINK = re.compile(r'((?:href|src)=")\.\./')


def rewrite_links(page: str) -> str:
    """``X.ipynb#a`` → ``X.html#a``; ``../path`` → ``../../path`` (the site is one level deeper)."""
    page = _NB_LINK.sub(r"\1\2.html\3", page)
    return _UP_LINK.sub(r"\1../../", page)


def exporter() -> HTMLExporter:
    ex = HTMLExporter(
        template_name="lab", extra_loaders=[DictLoader({"msgmodel_site.html.j2": TEMPLATE})], embed_images=True
    )
    ex.template_file = "msgmodel_site.html.j2"
    return ex


def unexecuted_cells(nb: nbformat.NotebookNode) -> int:
    return sum(1 for c in nb.cells if c.cell_type == "code" and c.source.strip() and c.execution_count is None)


def build(out: Path, notebooks: Path = NOTEBOOKS) -> list[Chapter]:
    sources = sorted(notebooks.glob("[0-9][0-9]_*.ipynb"))
    if not sources:
        raise SystemExit(f"no chapters in {notebooks} (expected NN_name.ipynb files; run `make notebooks`)")
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    ex = exporter()
    chapters: list[Chapter] = []
    notebooks_read = []
    for source in sources:
        nb = nbformat.read(source, as_version=4)
        chapters.append(Chapter(source, chapter_title(nb, source), chapter_blurb(nb)))
        notebooks_read.append(nb)
        missing = unexecuted_cells(nb)
        if missing:
            print(f"warning: {source.name}: {missing} code cells have no stored outputs", file=sys.stderr)
    for i, (ch, nb) in enumerate(zip(chapters, notebooks_read, strict=True)):
        resources = {
            "metadata": {"name": ch.title, "path": str(ch.source.parent)},
            "mm_series_title": SERIES_TITLE,
            "mm_position": f"chapter {i + 1} of {len(chapters)}",
        }
        body, _ = ex.from_notebook_node(nb, resources=resources)
        (out / ch.page).write_text(rewrite_links(body), encoding="utf-8")
        print(f"{ch.page}: {ch.title}")
    (out / "index.html").write_text(rewrite_links(index_html(chapters)), encoding="utf-8")
    print(f"index.html: {len(chapters)} chapters → {out}")
    return chapters


def index_html(chapters: list[Chapter]) -> str:
    items = "\n".join(
        f'<li><a href="{html.escape(ch.page)}">{html.escape(ch.title)}</a><div class="blurb">{ch.blurb_html}</div></li>'
        for ch in chapters
    )
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(SERIES_TITLE)}</title>
<style>
body{{font-family:system-ui,sans-serif;max-width:820px;margin:40px auto;padding:0 16px;line-height:1.5;color:#222}}
h1{{font-size:26px}} ol{{padding-left:1.4em}} li{{margin:14px 0}} li>a{{font-size:18px;font-weight:600}}
.blurb{{color:#444}} .blurb p{{margin:4px 0}} code{{background:#f2f2f2;padding:0 3px;border-radius:3px}}
</style>
</head>
<body>
<h1>{html.escape(SERIES_TITLE)}</h1>
<p>The notebook series as static pages, with the outputs of their last committed run.
To run them, open the notebooks in JupyterLab (<code>make lab</code>).</p>
<ol>
{items}
</ol>
</body>
</html>
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=SITE, help=f"output directory (default: {SITE.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    build(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
