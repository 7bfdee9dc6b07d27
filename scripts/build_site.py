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
"""

from __future__ import annotations

import argparse
import importlib
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


def stage(src: Path) -> None:
    """Lay out the Sphinx source tree ``src``: the repository, the root page, the API pages.

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


def build(out: Path = SITE, *, fresh: bool = False, quiet: bool = True) -> None:
    """Build the site into ``out``; raise ``SystemExit`` when Sphinx reports a warning or an error."""
    from sphinx.cmd.build import build_main

    src = out.parent / f"{out.name}-src"
    doctrees = out.parent / f"{out.name}-doctrees"
    refuse_foreign(out, ".buildinfo")  # Sphinx's own file at the root of every HTML build
    stage(src)
    if out.exists():  # no page of a removed document stays behind (the doctrees keep the build incremental)
        shutil.rmtree(out)
    args = ["-W", "--keep-going", "-b", "html", "-c", str(CONF), "-d", str(doctrees), str(src), str(out)]
    if fresh:
        args.insert(0, "-E")
    if quiet:
        args.insert(0, "-q")
    status = build_main(args)
    if status:
        raise SystemExit(f"sphinx-build failed (exit {status}); the warnings above are errors")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=SITE, help=f"output directory (default: {SITE.relative_to(ROOT)})")
    ap.add_argument("--fresh", action="store_true", help="re-read every page (sphinx-build -E)")
    args = ap.parse_args(argv)
    started = time.monotonic()
    build(args.out.resolve(), fresh=args.fresh, quiet=False)
    pages = sum(1 for _ in args.out.rglob("*.html"))
    print(f"{pages} pages in {args.out} ({time.monotonic() - started:.1f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
