"""Sphinx configuration of the documentation site: ``make html`` → ``build/site/index.html``.

Why it lives in ``docs/site/`` and not next to the pages: the site's pages live all over the
repository (``notebooks/NN_*.ipynb``, ``docs/*.md``, ``bench/RESULTS.md``, ``README.md``) and link to
each other and to source files by their repository paths (``../docs/survey.md#chapter-01``,
``../msgmodel/core/compact.py``). ``scripts/build_site.py`` lays out ``build/site-src/`` as a mirror
of the repository made of symlinks, adds this directory's ``index.md`` as the root page and one
generated API page per module of ``msgmodel.core``, and runs ``sphinx-build -W -c docs/site`` on it.
So every relative link means on the site what it means in the repository, and a page added to
``docs/`` appears without editing anything here.

Offline, by construction: myst-nb renders the committed outputs (nothing is executed), a widget
output shows its static ``text/html`` fallback (its widget view is dropped and no widget manager
script is loaded), a mermaid diagram is its committed SVG (scripts/diagrams.py), nothing uses math, and the theme (furo)
ships its fonts, scripts and styles in ``_static/``. ``tests/test_site.py`` checks that no page
references an external script, stylesheet or font and that every local link and anchor resolves.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # msgmodel_site, the site's extension

project = "msgmodel"
author = "the msgmodel authors"
copyright = "the msgmodel authors, MIT License"
html_title = "msgmodel: one content model for agent chat messages"

extensions = ["myst_nb", "sphinx.ext.autodoc", "sphinx.ext.viewcode", "msgmodel_site"]

root_doc = "index"
# The staging tree mirrors the whole repository; these are the pages.
include_patterns = [
    "index.md",
    "README.md",  # README.zh-CN.md is the Chinese site's README page (scripts/build_site.py)
    "notebooks/[0-9][0-9]_*.ipynb",
    "docs/*.md",
    "bench/RESULTS.md",
    "api/*.rst",
]
# Directories without pages, not walked (links into them still resolve: they are copied as downloads).
exclude_patterns = [
    "build",
    "classroom",
    "msgmodel",
    "scripts",
    "tests",
    "notebooks/src",
    "docs/site",
    "docs/*.zh-CN.md",  # the Chinese documents: pages of the Chinese site, in the English ones' place
    "**/node_modules",
]

# --- MyST and the notebooks
nb_execution_mode = "off"  # the committed outputs, as `make notebooks` stored them
# A widget view needs a kernel or the widget manager from a CDN: show the static text/html
# fallback that msgmodel.course.widgets stores next to it, and load no widget script.
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
nb_merge_streams = True
myst_heading_anchors = 6  # GitHub-style heading ids (docs/*.md links use them); msgmodel_site adds Jupyter's
myst_enable_extensions = ["colon_fence"]

# --- API reference
autodoc_member_order = "bysource"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_typehints = "signature"
viewcode_line_numbers = True

# --- HTML
html_theme = "furo"
html_copy_source = False  # no _sources/ copies: search snippets come from the pages themselves
html_show_sphinx = False
html_last_updated_fmt = None
html_static_path = ["_static"]  # docs/site/_static: one stylesheet of ours (msgmodel.css)
html_css_files = ["msgmodel.css"]
language = "en"  # the Chinese site: scripts/build_site.py passes -D language=zh_CN (and jieba's dictionary)
# The language switch (msgmodel_site) sits under the site's name in the sidebar of every page.
templates_path = ["_templates"]
html_sidebars = {
    "**": [
        "sidebar/brand.html",
        "sidebar/language-switch.html",
        "sidebar/search.html",
        "sidebar/scroll-start.html",
        "sidebar/navigation.html",
        "sidebar/scroll-end.html",
    ]
}

# Warnings are errors (sphinx-build -W). One kind is suppressed: ``myst.header``, a heading level that
# skips one (``#`` then ``###``). Markdown on GitHub and in JupyterLab renders it as written, and the
# documents use it on purpose (a small heading under the title); the site renders it the same way.
suppress_warnings = ["myst.header"]
