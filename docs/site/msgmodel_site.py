"""The site's one Sphinx extension: what Sphinx + myst-nb need to read our chapters as JupyterLab does.

* Jupyter-style anchors. A chapter links to another as ``02_lost_tool_context.ipynb#6.-The-toolUseId-slip``:
  JupyterLab's id of a heading is its text with every space turned into ``-``. MyST knows headings
  by its own slugs (GitHub style, ``6-the-tooluseid-slip``, which ``docs/*.md`` links use). After
  each document is read, every heading's Jupyter-style id is added to MyST's slug table as an
  alias of the same section, so both spellings of a link resolve to the heading's real id on the
  site, and a link to a heading that does not exist is still a build error (``-W``).
* Widgets. A chapter stores its widgets' state in the notebook's metadata; myst-nb would embed it in
  the page for a widget manager that the site never loads (conf.py drops the widget views and their
  scripts). It is taken out of the notebook as it is read: each widget shows its static ``text/html``
  fallback, and the pages carry no state for a manager that is not there.
* Source files. A link to a module's file (``../msgmodel/core/compact.py``) becomes a link to its
  highlighted source page (``_modules/msgmodel/core/compact.html``, made by ``sphinx.ext.viewcode`` for
  every module of the API reference). Any other file a page links to (``../bench/run.py``) is copied
  to ``_downloads/`` by Sphinx, as MyST makes such links downloads: no link leads nowhere.
* Diagrams. A chapter draws a diagram in a ```` ```mermaid ```` fence (chapter 00's four messages).
  The site loads no mermaid.js: each fence becomes the SVG that ``scripts/diagrams.py`` drew and
  committed (``docs/diagrams/``), inline in the page, in a ``<figure class="msg-diagram">``; a fence
  without its SVG is a build error naming the command that draws it. ``jsonl`` (the session files
  of ``docs/``) is highlighted as JSON.
"""

from __future__ import annotations

import json
import posixpath
import sys
from pathlib import Path
from typing import Any

from docutils import nodes
from pygments.lexers.data import JsonLexer
from pygments.lexers.special import TextLexer
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import diagrams  # (scripts/diagrams.py: the committed SVG of every mermaid diagram)


def jupyter_anchor(heading_text: str) -> str:
    """The id JupyterLab gives a heading: its text, spaces turned into ``-`` (case and punctuation kept)."""
    return "-".join(heading_text.strip().split(" "))


def add_jupyter_anchors(app: Sphinx, doctree: nodes.document) -> None:
    """Alias every heading of the document just read under its Jupyter-style id in MyST's slug table."""
    metadata = app.env.metadata[app.env.docname]
    slugs: dict[str, tuple[int, str, str]] | None = metadata.get("myst_slugs")
    if not slugs:
        return
    for line, section_id, text in list(slugs.values()):
        slugs.setdefault(jupyter_anchor(text), (line, section_id, text))


def drop_widget_state(app: Sphinx, docname: str, source: list[str]) -> None:
    """Take the saved widget state out of a notebook as Sphinx reads it (nothing on the page would use it)."""
    if app.env.doc2path(docname).suffix != ".ipynb":
        return
    nb = json.loads(source[0])
    if nb.get("metadata", {}).pop("widgets", None) is not None:
        source[0] = json.dumps(nb)


def module_of(path: str) -> str | None:
    """``msgmodel/core/compact.py`` → ``msgmodel.core.compact`` (a path relative to the source root)."""
    if not path.endswith(".py") or path.startswith("../"):
        return None
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts) if parts else None


def link_sources_to_viewcode(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Turn a download link to a documented module's file into a link to its viewcode page."""
    documented: dict[str, Any] = getattr(app.env, "_viewcode_modules", {})
    for node in list(doctree.findall(addnodes.download_reference)):
        target = posixpath.normpath(posixpath.join(posixpath.dirname(docname), node.get("reftarget", "")))
        module = module_of(target)
        if module is None or not documented.get(module):
            continue
        uri = app.builder.get_relative_uri(docname, "_modules/" + module.replace(".", "/"))
        link = nodes.reference("", "", *node.children, internal=True, refuri=uri)
        node.replace_self(link)


def draw_diagrams(app: Sphinx, doctree: nodes.document) -> None:
    """Replace every mermaid code block of the document just read by its drawn SVG."""
    for node in list(doctree.findall(nodes.literal_block)):
        if node.get("language") != "mermaid":
            continue
        source = node.astext()
        try:
            svg = diagrams.drawn(source)
        except LookupError as e:
            raise ExtensionError(f"{app.env.docname}: {e}") from None
        figure = f'<figure class="msg-diagram" data-diagram="{diagrams.key(source)}">{svg}</figure>'
        node.replace_self(nodes.raw("", figure, format="html"))


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_lexer("mermaid", TextLexer)
    app.connect("doctree-read", draw_diagrams)
    app.add_lexer("jsonl", JsonLexer)
    app.connect("source-read", drop_widget_state)
    app.connect("doctree-resolved", link_sources_to_viewcode)
    # before myst-parser's reference resolver (a post-transform, after every document is read)
    app.connect("doctree-read", add_jupyter_anchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
