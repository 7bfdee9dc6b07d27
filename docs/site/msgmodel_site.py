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
* Mermaid. Chapters 00 and 03 draw diagrams in ```` ```mermaid ```` fences. Drawing them needs
  mermaid.js from a CDN, which the site never loads; the page shows the diagram's source as a
  plain code block, and Pygments is told that ``mermaid`` is plain text (otherwise it warns). Likewise
  ``jsonl`` (the session files of ``docs/``) is highlighted as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from docutils import nodes
from pygments.lexers.data import JsonLexer
from pygments.lexers.special import TextLexer
from sphinx.application import Sphinx


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


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_lexer("mermaid", TextLexer)
    app.add_lexer("jsonl", JsonLexer)
    app.connect("source-read", drop_widget_state)
    # before myst-parser's reference resolver (a post-transform, after every document is read)
    app.connect("doctree-read", add_jupyter_anchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
