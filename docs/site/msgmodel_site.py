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
* Diagrams. A chapter draws a diagram in a ```` ```mermaid ```` fence (chapter 00's four messages; the Chinese
  chapter's fence is the same source, so the same SVG).
  The site loads no mermaid.js: each fence becomes the SVG that ``scripts/diagrams.py`` drew and
  committed (``docs/diagrams/``), inline in the page, in a ``<figure class="msg-diagram">``; a fence
  without its SVG is a build error naming the command that draws it. ``jsonl`` (the session files
  of ``docs/``) is highlighted as JSON.
* The language switch. The site is built twice, in English (``build/site/``) and in Chinese
  (``build/site/zh/``, ``language = zh_CN``), with the same pages at the same paths
  (``scripts/build_site.py``). Every page gets ``msgmodel_switch``, the relative link to the same page in
  the other language, which ``_templates/sidebar/language-switch.html`` shows under the site's name.
  A link to a Chinese file (the README's ``README.zh-CN.md``, ``notebooks/zh/00_start_here.ipynb``) leads
  to its page on the Chinese site: from the English site across (``zh/README.html``), on the Chinese site
  to the page that holds it (``notebooks/00_start_here``). ``chinese_page`` says which page that is. And a
  Chinese document's links to the English (its original, an English chapter) go across to the English site.
"""

from __future__ import annotations

import json
import posixpath
import sys
from pathlib import Path
from typing import Any

import sphinx.search.zh
from docutils import nodes
from pygments.lexers.data import JsonLexer
from pygments.lexers.special import TextLexer
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import diagrams  # (scripts/diagrams.py: the committed SVG of every mermaid diagram)
from sphinx.transforms.post_transforms import SphinxPostTransform


def jupyter_anchor(heading_text: str) -> str:
    """The id JupyterLab gives a heading: its text, spaces turned into ``-`` (case and punctuation kept)."""
    return "-".join(heading_text.strip().split(" "))


HEADING_ALIASES = "heading-aliases.json"
"""In the Chinese site's source tree (``scripts/build_site.py``): per chapter, Chinese heading → English heading."""


def heading_aliases(app: Sphinx) -> dict[str, dict[str, str]]:
    path = Path(app.srcdir) / HEADING_ALIASES
    aliases: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    return aliases


def add_jupyter_anchors(app: Sphinx, doctree: nodes.document) -> None:
    """Alias every heading of the document just read under its Jupyter-style id in MyST's slug table.

    On the Chinese site a heading is also aliased under the id of the English heading it translates:
    the Chinese chapters keep the English chapters' links (``00_start_here.ipynb#Chapter-map``).
    """
    metadata = app.env.metadata[app.env.docname]
    slugs: dict[str, tuple[int, str, str]] | None = metadata.get("myst_slugs")
    if not slugs:
        return
    english = heading_aliases(app).get(app.env.docname, {})
    if english:
        app.env.note_dependency(str(Path(app.srcdir) / HEADING_ALIASES))  # re-read when the aliases change
    for line, section_id, text in list(slugs.values()):
        slugs.setdefault(jupyter_anchor(text), (line, section_id, text))
        if text.strip() in english:  # (MyST keeps the space before a heading's inline HTML anchor)
            slugs.setdefault(jupyter_anchor(english[text.strip()]), (line, section_id, text))


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


CHINESE = "zh"
"""The Chinese site's folder inside the English one (``build/site/zh/``)."""


def language_switch(pagename: str, language: str) -> dict[str, str]:
    """The link from page ``pagename`` of the site in ``language`` to the same page in the other language."""
    up = "../" * pagename.count("/")
    if language.startswith("zh"):
        return {"href": f"{up}../{pagename}.html", "label": "English", "lang": "en", "current": "中文"}
    return {"href": f"{up}{CHINESE}/{pagename}.html", "label": "中文", "lang": "zh-CN", "current": "English"}


def add_language_switch(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: nodes.document | None
) -> None:
    context["msgmodel_switch"] = language_switch(pagename, app.config.language or "en")


REPOSITORY = Path(__file__).resolve().parents[2]


def chinese_page(target: str) -> str | None:
    """The Chinese site's page of a file linked as ``target`` (a path without suffix), or None if none.

    ``README.zh-CN`` → ``README``, ``notebooks/zh/04_unified_model`` → ``notebooks/04_unified_model``,
    ``docs/cheatsheet.zh-CN`` → ``docs/cheatsheet``. A target may be absolute (MyST resolves the staging
    tree's symlinks to the repository).
    """
    path = Path(target)
    if path.is_absolute():
        if not path.is_relative_to(REPOSITORY):
            return None
        path = path.relative_to(REPOSITORY)
    rel = path.as_posix()
    if rel.endswith(".zh-CN"):
        return rel.removesuffix(".zh-CN")
    if rel.startswith(f"notebooks/{CHINESE}/") and rel.count("/") == 2:
        return f"notebooks/{path.name}"
    return None


class ChineseLinks(SphinxPostTransform):
    """Links to the Chinese files, before MyST's resolver (priority 9) would call them unknown documents."""

    default_priority = 8

    def run(self, **kwargs: Any) -> None:
        chinese = (self.config.language or "en").startswith("zh")
        up = "../" * self.env.docname.count("/")
        # a page made from ``<name>.zh-CN.md`` (a chapter from notebooks/zh/ links to itself as itself)
        beside_english = self.env.doc2path(self.env.docname).suffix == ".md"
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst":
                continue
            target = str(node.get("reftarget", ""))
            # A Chinese document links to its English original (README.zh-CN.md's "English" → README.md)
            # and to the English chapters (notebooks/NN_*.ipynb; the Chinese ones are notebooks/zh/): on
            # the Chinese site those paths hold the Chinese pages, so the link goes across.
            english = target == self.env.docname or (target.startswith("notebooks/") and target in self.env.all_docs)
            if chinese and beside_english and english and not node.get("reftargetid"):
                node.replace_self(self._link(node, f"{up}../{target}.html"))
                continue
            page = chinese_page(target) if target not in self.env.all_docs else None
            if page is None:
                continue
            if chinese:
                node["reftarget"] = page  # the page is in this site: MyST links it as any other
            else:
                node.replace_self(self._link(node, f"{up}{CHINESE}/{page}.html"))

    @staticmethod
    def _link(node: addnodes.pending_xref, uri: str) -> nodes.reference:
        return nodes.reference("", "", *node.children, internal=False, refuri=uri)


class SearchChinese(sphinx.search.zh.SearchChinese):
    """Sphinx's Chinese search (jieba), with its browser side working on Sphinx 9.0.

    Sphinx 9.0 writes ``window.Stemmer = <language_name>Stemmer`` into ``language_data.js``, and the
    Chinese search stems Latin words with the English stemmer, so the page asks for a
    ``ChineseStemmer`` that does not exist and the search never finishes ("ChineseStemmer is not
    defined", sphinx-doc/sphinx#14229, fixed upstream by deriving the name from the stemmer's file).
    Naming the language after its stemmer gives the page the ``EnglishStemmer`` it loads.
    """

    language_name = "English"


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_search_language(SearchChinese)
    app.add_post_transform(ChineseLinks)
    app.connect("html-page-context", add_language_switch)
    app.add_lexer("mermaid", TextLexer)
    app.connect("doctree-read", draw_diagrams)
    app.add_lexer("jsonl", JsonLexer)
    app.connect("source-read", drop_widget_state)
    app.connect("doctree-resolved", link_sources_to_viewcode)
    # before myst-parser's reference resolver (a post-transform, after every document is read)
    app.connect("doctree-read", add_jupyter_anchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
