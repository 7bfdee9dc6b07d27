"""Build the documentation site with Sphinx: ``build/site/index.html`` (``make html``).

    python scripts/build_site.py                 # build/site/ (incremental; warnings are errors)
    python scripts/build_site.py --fresh         # re-read every page
    python scripts/build_site.py --out DIR       # somewhere else

The pages are the chapters ``notebooks/NN_*.ipynb`` with their committed outputs (nothing is
executed), every ``docs/*.md``, ``bench/RESULTS.md``, the README, and an API reference of
``msgmodel.core`` and ``msgmodel.api`` (the local Messages API and the testing kit, with the pytest
plugin ``msgmodel.pytest_plugin``) generated from their docstrings (one page per public module). The Sphinx
configuration, the root page and the site's extension are in ``docs/site/`` (its ``conf.py`` says
why). This script lays out ``build/site-src/``: a symlink to every top-level entry of the
repository (the pages themselves copied), so that the pages' relative links (``../docs/survey.md``,
``../msgmodel/core/compact.py``) resolve on the site as in the repository, plus ``index.md`` and the
generated ``api/*.rst``; then it runs ``sphinx-build -W --keep-going`` (doctrees in
``build/site-doctrees/``). Nothing is fetched from the network, at build time or when the pages are read.

**The Chinese site**, ``build/site/zh/``, is built next (Sphinx builds one language at a time) from a
second staging tree, ``build/site-zh-src/``: the same pages at the same paths, each replaced by its
Chinese edition where one exists (``chinese_pages``: ``notebooks/zh/NN_*.ipynb``, the documents'
``docs/*.zh-CN.md``, ``README.zh-CN.md``, ``docs/site/index.zh-CN.md``), so every relative link
means what it means in English, and every page of one site has its twin at the same path in the
other: the language switch of every page (``msgmodel_site``) leads to the same page in the other
language. Its search segments Chinese with ``jieba`` (Sphinx's ``zh_CN`` search), which also learns
the glossary's terms (``jieba_dictionary``), so that 判别联合 is one word, as a reader types it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import logging
import re
import runpy
import shutil
import sys
import time
from pathlib import Path
from typing import Final

ROOT = Path(__file__).resolve().parent.parent
CONF = ROOT / "docs" / "site"
BUILD = ROOT / "build"
SITE = BUILD / "site"
ZH = "zh"  # the Chinese site: build/site/zh/
ZH_LANGUAGE = "zh_CN"
ZH_TITLE = "msgmodel：智能体聊天消息的统一内容模型"
CORE = ROOT / "msgmodel" / "core"
API = ROOT / "msgmodel" / "api"


def core_modules() -> list[str]:
    """The public modules of ``msgmodel.core`` (``_private.py`` modules are left out), in name order."""
    return [f"msgmodel.core.{p.stem}" for p in sorted(CORE.glob("[!_]*.py"))]


def api_modules() -> list[str]:
    """The public modules of ``msgmodel.api``, in name order, then the pytest plugin (``msgmodel.pytest_plugin``)."""
    return [*(f"msgmodel.api.{p.stem}" for p in sorted(API.glob("[!_]*.py"))), "msgmodel.pytest_plugin"]


def reference_modules() -> list[str]:
    """Every module the API reference has a page for: ``core_modules()`` then ``api_modules()``."""
    return [*core_modules(), *api_modules()]


def api_pages() -> dict[str, str]:
    """``api/index.rst`` (the packages' docstrings and a table of contents each) and one page per module.

    reStructuredText, not MyST: autodoc writes reST, and the docstrings are reST.
    """
    title = "API reference: ``msgmodel.core`` and ``msgmodel.api``"
    core_toc = "".join(f"   {m}\n" for m in core_modules())
    api_toc = "".join(f"   {m}\n" for m in api_modules())
    pages = {
        "index.rst": (
            f"{title}\n{'=' * len(title)}\n\n"
            "Generated from the docstrings. ``msgmodel.core.message`` is the model itself; "
            "every other module is built on it. ``msgmodel.api`` (the ``[api]`` extra) is the local "
            "Messages API and the testing kit; the library guide (``docs/library-guide.md``) shows "
            "them in use.\n\n"
            "``msgmodel.core``\n-----------------\n\n"
            ".. automodule:: msgmodel.core\n   :no-members:\n\n"
            f".. toctree::\n   :maxdepth: 1\n\n{core_toc}\n"
            "``msgmodel.api``\n----------------\n\n"
            ".. automodule:: msgmodel.api\n   :no-members:\n\n"
            f".. toctree::\n   :maxdepth: 1\n\n{api_toc}"
        )
    }
    for module in reference_modules():
        heading = f"``{module}``"
        text = f"{heading}\n{'=' * len(heading)}\n\n.. automodule:: {module}\n"
        reexported = reexports(module)
        if reexported:
            text += f"   :exclude-members: {', '.join(sorted(reexported))}\n\n"
            links = ", ".join(f":py:obj:`{name} <{home}.{name}>`" for name, home in sorted(reexported.items()))
            text += f"Also exported here, documented where they are defined: {links}.\n"
        pages[f"{module}.rst"] = text
    return pages


def reexports(module: str) -> dict[str, str]:
    """Names in the module's ``__all__`` that another ``msgmodel`` module defines: name → defining module.

    Each object is documented once, on its own module's page (two descriptions of one object would
    also send viewcode's "docs" links to an id that does not exist).
    """
    mod = importlib.import_module(module)
    found: dict[str, str] = {}
    for name in getattr(mod, "__all__", []):
        home = getattr(getattr(mod, name), "__module__", module)
        if isinstance(home, str) and home != module and home.startswith("msgmodel."):
            found[name] = home
    return found


def page_patterns() -> list[str]:
    """The pages of the site, as glob patterns relative to the repository (``include_patterns`` of conf.py)."""
    patterns: list[str] = runpy.run_path(str(CONF / "conf.py"))["include_patterns"]
    return patterns


STAGED: Final = ".staged-by-build-site"
"""The marker file ``stage`` leaves in the source tree it lays out (Sphinx reads no page from it)."""


def refuse_foreign(path: Path, *markers: str) -> None:
    """``SystemExit`` unless ``path`` is absent, empty, or holds one of ``markers`` (a tree this script made).

    The build empties its output and staging directories first; ``--out docs`` or ``--out ~/www``
    would otherwise delete a folder of the user's (``docs/``, or ``docs-src/`` beside it)."""
    if path.is_dir() and any(path.iterdir()) and not any((path / m).is_file() for m in markers):
        raise SystemExit(f"refusing to empty {path}: it is not a directory this script built (no {markers[0]})")


def dotdot(text: str) -> str:
    """A Chinese chapter's links as the English one's: the chapter is in ``notebooks/zh/``, its page is not."""
    return re.sub(r"(\]\(|href=\"|src=\")\.\./\.\./", r"\1../", text)


def chinese_notebook(path: Path) -> str:
    """``notebooks/zh/<stem>.ipynb`` as the Chinese site's page ``notebooks/<stem>.ipynb`` (links one level up)."""
    nb = json.loads(path.read_text(encoding="utf-8"))
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            text = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            cell["source"] = dotdot(text)
    return json.dumps(nb, ensure_ascii=False, indent=1) + "\n"


HEADING = re.compile(r"^#{1,6} +(.+?)\s*#*\s*$", re.M)
ALIASES = "heading-aliases.json"
"""In the Chinese staging tree: each chapter's Chinese heading texts → the English ones they translate."""


def heading_text(markdown: str) -> str:
    """A heading as a reader sees it (and JupyterLab ids it): code, emphasis and link markup dropped."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = re.sub(r"<a id=\"[^\"]*\"></a>", "", text)  # an explicit anchor (the Chinese heading's English id)
    return re.sub(r"[`*]|(?<!\w)_|_(?!\w)", "", text).strip()


def heading_aliases(english: Path, chinese: Path) -> dict[str, str]:
    """Chinese heading → the English heading of the same place (markdown cells in order, headings in order).

    A chapter links to another's section by its English JupyterLab id (``00_start_here.ipynb#Chapter-map``);
    the Chinese chapter keeps the link and titles the section in Chinese. ``msgmodel_site`` makes the
    English id an alias of the Chinese section, so the link lands where it does in English.
    """
    cells = [json.loads(p.read_text(encoding="utf-8"))["cells"] for p in (english, chinese)]
    texts = [
        [
            "".join(c["source"])
            for c in cs
            if c.get("cell_type") == "markdown" and "locale" not in c["metadata"].get("tags", ())
        ]
        for cs in cells
    ]  # the Chinese chapter's own cell (tag ``locale``: which edition this is) has no English twin
    aliases: dict[str, str] = {}
    for en, zh in zip(*texts, strict=False):
        en_heads, zh_heads = HEADING.findall(en), HEADING.findall(zh)
        if len(en_heads) == len(zh_heads):
            for a, b in zip(en_heads, zh_heads, strict=True):
                aliases.setdefault(heading_text(b), heading_text(a))
    return aliases


def chinese_pages() -> dict[str, Path]:
    """The pages that have a Chinese edition: the page's path on both sites → the Chinese source."""
    pages: dict[str, Path] = {"index.md": CONF / "index.zh-CN.md"}
    for zh in sorted((ROOT / "notebooks" / ZH).glob("[0-9][0-9]_*.ipynb")):
        if (ROOT / "notebooks" / zh.name).is_file():
            pages[f"notebooks/{zh.name}"] = zh
    for zh in sorted((ROOT / "docs").glob(f"*{ZH_DOC_SUFFIX}")):
        pages[f"docs/{zh.name.removesuffix(ZH_DOC_SUFFIX)}.md"] = zh
    if (ROOT / "README.zh-CN.md").is_file():
        pages["README.md"] = ROOT / "README.zh-CN.md"
    return pages


ZH_DOC_SUFFIX = ".zh-CN.md"


def jieba_dictionary(path: Path) -> Path:
    """A jieba user dictionary of the glossary's Chinese terms (``判别联合``, ``工具结果``…): one word each."""
    import translations

    try:
        import jieba

        jieba.setLogLevel(logging.WARNING)  # not its "Building prefix dict…" debug lines on every build
    except ImportError:  # Sphinx then indexes Chinese without segmenting it: the search finds little
        pass
    words = sorted(
        {r for t in translations.glossary() for r in t.renderings if translations.chinese_characters(r) >= 2}
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{w} 1000 n\n" for w in words), encoding="utf-8")
    return path


def stage(src: Path, *, chinese: bool = False) -> None:
    """Lay out the Sphinx source tree ``src``: the repository, the root page, the API pages.

    ``chinese``: every page that has a Chinese edition holds it instead (``chinese_pages``).

    The pages are copied (with their times, so that Sphinx rebuilds only what changed): MyST resolves a
    symlinked page to its real path, and its relative links would then point outside the source tree.
    Everything else is a symlink, so a link to ``../msgmodel/core/compact.py`` finds the file.
    """
    refuse_foreign(src, STAGED, "api/msgmodel.core.message.rst")  # or one staged before the marker
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    (src / STAGED).touch()
    pages = {p for pattern in page_patterns() for p in ROOT.glob(pattern) if p.is_file()}
    page_dirs = {p.parent for p in pages} - {ROOT}
    for entry in sorted(ROOT.iterdir()):
        if entry.name.startswith(".") or entry.name in ("build", "index.md", "api"):
            continue
        if entry in page_dirs:
            (src / entry.name).mkdir()
            for child in sorted(entry.iterdir()):
                target = src / entry.name / child.name
                if child in pages:
                    shutil.copy2(child, target)
                else:
                    target.symlink_to(child)
        elif entry in pages:
            shutil.copy2(entry, src / entry.name)
        else:
            (src / entry.name).symlink_to(entry)
    shutil.copy2(CONF / "index.md", src / "index.md")
    api = src / "api"
    api.mkdir()
    for name, text in api_pages().items():
        (api / name).write_text(text, encoding="utf-8")
    if chinese:
        aliases: dict[str, dict[str, str]] = {}
        for page, zh in chinese_pages().items():
            staged = src / page
            staged.unlink(missing_ok=True)
            if zh.suffix == ".ipynb":
                staged.write_text(chinese_notebook(zh), encoding="utf-8")
                aliases[page.removesuffix(".ipynb")] = heading_aliases(ROOT / page, zh)
            else:
                shutil.copyfile(zh, staged)
            shutil.copystat(zh, staged)  # Sphinx rebuilds a page when its time changes
        (src / ALIASES).write_text(json.dumps(aliases, ensure_ascii=False, indent=1), encoding="utf-8")


def sphinx(src: Path, out: Path, doctrees: Path, *, fresh: bool, quiet: bool, overrides: list[str]) -> None:
    from sphinx.cmd.build import build_main

    args = ["-W", "--keep-going", "-b", "html", "-c", str(CONF), "-d", str(doctrees), *overrides, str(src), str(out)]
    if fresh:
        args.insert(0, "-E")
    if quiet:
        args.insert(0, "-q")
    status = build_main(args)
    if status:
        raise SystemExit(f"sphinx-build failed (exit {status}); the warnings above are errors")


def build(out: Path = SITE, *, fresh: bool = False, quiet: bool = True, chinese: bool = True) -> dict[str, float]:
    """Build the site into ``out`` (and the Chinese one into ``out/zh``): seconds each build took.

    ``SystemExit`` when Sphinx reports a warning or an error.
    """
    refuse_foreign(out, ".buildinfo")  # Sphinx's own file at the root of every HTML build
    if out.exists():  # no page of a removed document stays behind (the doctrees keep the build incremental)
        shutil.rmtree(out)
    took: dict[str, float] = {}
    started = time.monotonic()
    src = out.parent / f"{out.name}-src"
    stage(src)
    sphinx(src, out, out.parent / f"{out.name}-doctrees", fresh=fresh, quiet=quiet, overrides=[])
    took["en"] = time.monotonic() - started
    if chinese:
        started = time.monotonic()
        src = out.parent / f"{out.name}-{ZH}-src"
        stage(src, chinese=True)
        words = jieba_dictionary(out.parent / f"{out.name}-{ZH}-jieba.txt")
        overrides = [
            "-D",
            f"language={ZH_LANGUAGE}",
            "-D",
            f"html_title={ZH_TITLE}",
            "-D",
            f"html_search_options.dict={words}",
        ]
        sphinx(src, out / ZH, out.parent / f"{out.name}-{ZH}-doctrees", fresh=fresh, quiet=quiet, overrides=overrides)
        took[ZH] = time.monotonic() - started
    return took


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=SITE, help=f"output directory (default: {SITE.relative_to(ROOT)})")
    ap.add_argument("--fresh", action="store_true", help="re-read every page (sphinx-build -E)")
    args = ap.parse_args(argv)
    took = build(args.out.resolve(), fresh=args.fresh, quiet=False)
    zh = args.out / ZH
    pages = sum(1 for p in args.out.rglob("*.html") if not p.is_relative_to(zh))
    print(f"{pages} pages in {args.out} ({took['en']:.1f} s)", file=sys.stderr)
    print(f"{sum(1 for _ in zh.rglob('*.html'))} pages in {zh} ({took[ZH]:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
