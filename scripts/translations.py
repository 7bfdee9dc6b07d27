"""The Chinese edition's catalogs: extracted from the English, kept in step with it, and applied.

    python scripts/translations.py            # `make translations`: update every catalog, compile the course's
    python scripts/translations.py --check    # nothing written: are the catalogs in step and complete?
    python scripts/translations.py --stats    # entries per chapter (translated, fuzzy, missing), Chinese characters

**Granularity: one entry per markdown cell.** The prose of chapter ``<stem>`` lives in
``notebooks/locale/zh_CN/LC_MESSAGES/<stem>.po`` (the convention of issue 23): one entry per markdown
cell of ``notebooks/<stem>.ipynb`` (the navigation cells included), in cell order, ``msgid`` = the
cell's text, reference ``#: <stem>.ipynb:<cell index>``; identical cells share one entry. The English
sources stay the only source: an update re-extracts the cells (``template``) and merges the catalog
with Babel's ``Catalog.update``, so a translation whose English is unchanged stays, an entry whose
English changed keeps its old translation **marked fuzzy** (with the previous English as ``#|``), a
new cell gets an empty entry, and an entry whose cell is gone moves to the obsolete ``#~`` block.

**Applying a catalog** (``translated_notebook``): the English chapter, as ``build_notebooks`` assembles
it, with each markdown cell replaced by its translation, links to ``../docs`` and ``../bench`` one
folder further up (the Chinese chapters live in ``notebooks/zh/``), and one code cell more: the
first code cell is preceded by ``i18n.use("zh_CN")`` (tag ``locale``), which makes the course layer
print Chinese (``msgmodel.course.i18n``). Code cells are the English ones, unchanged. A cell whose
entry is missing or fuzzy is **built in English, under a visible marker** (``MISSING_MARK``,
``FUZZY_MARK``), so the build never stops a change to the English; ``tests/test_zh_edition.py`` is
what refuses it: it fails on any catalog out of step with the English, any missing or fuzzy entry,
naming each. ``translated_notebook(stem)`` serves every consumer (the build, the site, the teacher's
guide, the slides).

The course layer's catalog, ``msgmodel/course/locale/zh_CN/LC_MESSAGES/msgmodel_course.po``, is
extracted from the strings marked ``_``, ``N_`` and ``ngettext`` in ``msgmodel/course`` and from the
``title=`` literals the chapters' code passes to the widgets; the update also compiles it to the
``.mo`` beside it, which is committed (the package reads it with the standard library's gettext).
"""

from __future__ import annotations

import argparse
import ast
import io
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import chapters as build  # scripts/chapters.py: the chapters as the build assembles them
import nbformat
from babel.messages.catalog import Catalog, Message
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, unescape, write_po

ROOT = build.ROOT
LANG = "zh_CN"
LOCALE = build.NOTEBOOKS / "locale"
ZH = build.NOTEBOOKS / "zh"
COURSE = ROOT / "msgmodel" / "course"
COURSE_DOMAIN = "msgmodel_course"
COURSE_PO = COURSE / "locale" / LANG / "LC_MESSAGES" / f"{COURSE_DOMAIN}.po"
COURSE_MO = COURSE_PO.with_suffix(".mo")
KEYWORDS = ("_", "N_", "ngettext")
LOCALE_TAG = "locale"
SETUP = 'from msgmodel.course import i18n\n\ni18n.use("zh_CN")'
MISSING_MARK = "> ⚠️ **未翻译**：本段还没有中文译文，下面是英文原文（`make translations`，然后补上译文）。"
FUZZY_MARK = "> ⚠️ **译文待更新**：英文原文改了，旧译文已标为 fuzzy，下面是新的英文原文。"
PO_WIDTH = 100_000


def catalog_path(stem: str) -> Path:
    """Where the catalog of chapter ``stem`` lives."""
    return LOCALE / LANG / "LC_MESSAGES" / f"{stem}.po"


def new_catalog(project: str = "msgmodel") -> Catalog:
    return Catalog(locale=LANG, project=project, version=None, charset="UTF-8", fuzzy=False)


def read_catalog(path: Path) -> Catalog:
    return read_catalog_bytes(path.read_bytes())


def read_catalog_bytes(data: bytes) -> Catalog:
    """The catalog of PO text ``data``, with the ``#|`` previous ids ``po_text`` wrote read back as previous ids.

    Babel reads a one-line ``#| msgid "" "a" "b"`` (a multi-line previous id left unwrapped) as a translator
    comment ``| msgid ...``; left so, every update would add one more copy of it.
    """
    catalog = read_po(io.BytesIO(data), locale=LANG, abort_invalid=True)
    for entry in catalog:
        previous = [c for c in entry.user_comments if c.startswith("| msgid ")]
        if previous:
            entry.user_comments = [c for c in entry.user_comments if c not in previous]
            if not entry.previous_id:
                parts = re.findall(r'"((?:[^"\\]|\\.)*)"', previous[0])
                entry.previous_id = ["".join(unescape(f'"{p}"') for p in parts)]
    return catalog


def po_text(catalog: Catalog) -> bytes:
    """The catalog as PO text: unwrapped, obsolete entries kept as ``#~``, previous ids as ``#|``.

    Not ``width=0``: Babel then still wraps the ``#|`` comments at 76 columns; a width no line reaches wraps nothing.
    """
    out = io.BytesIO()
    write_po(out, catalog, width=PO_WIDTH, include_previous=True, ignore_obsolete=False)
    text = out.getvalue().decode("utf-8")
    # Babel's round trip of a one-word "Project-Id-Version: msgmodel" writes " msgmodel" (project "", version
    # "msgmodel"); and it drops a location's line number 0, where the convention wants "<stem>.ipynb:0".
    text = re.sub(r'^"Project-Id-Version: +(\S+(?: \S+)*?) *\\n"$', r'"Project-Id-Version: \1\\n"', text, flags=re.M)
    text = re.sub(r"^#:.*$", lambda m: re.sub(r"(\S+\.ipynb)(?=\s|$)", r"\1:0", m.group(0)), text, flags=re.M)
    return text.encode("utf-8")


def mo_bytes(catalog: Catalog) -> bytes:
    """The catalog compiled (fuzzy entries left out: gettext then shows the English)."""
    out = io.BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


def chapter_index(stem: str) -> tuple[list[build.Chapter], int]:
    chs = build.chapters()
    for i, ch in enumerate(chs):
        if ch.stem == stem:
            return chs, i
    raise SystemExit(f"no chapter {stem!r} in notebooks/src (known: {', '.join(c.stem for c in chs)})")


def english(stem: str) -> nbformat.NotebookNode:
    """Chapter ``stem`` in English as ``build_notebooks`` assembles it (unexecuted)."""
    chs, i = chapter_index(stem)
    return build.assemble(chs, i)


def markdown_cells(nb: nbformat.NotebookNode) -> Iterator[tuple[int, str]]:
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            yield i, cell.source


def template(stem: str, nb: nbformat.NotebookNode | None = None) -> Catalog:
    """The entries chapter ``stem``'s English asks for: one per markdown cell, in cell order, no translations."""
    nb = english(stem) if nb is None else nb
    catalog = new_catalog()
    for i, text in markdown_cells(nb):
        if text in catalog:
            catalog[text].locations.append((f"{stem}.ipynb", i))
        else:
            catalog.add(text, locations=[(f"{stem}.ipynb", i)])
    return catalog


def merged(old: Catalog | None, fresh: Catalog) -> Catalog:
    """``old`` brought in step with ``fresh`` (Babel's update: changed entries fuzzy, gone ones obsolete).

    Entries come out in ``fresh``'s order (the cells' order); the header of ``old`` is kept.
    """
    if old is None:
        return fresh
    previous = {e.id: e.previous_id for e in old if e.id and e.fuzzy and e.previous_id}
    old.update(fresh, no_fuzzy_matching=False, update_header_comment=False, update_creation_date=False)
    ordered = new_catalog()
    ordered.mime_headers = old.mime_headers
    ordered.header_comment = old.header_comment
    ordered.charset = "UTF-8"  # Babel reads the charset lowercased; the convention writes UTF-8
    for entry in fresh:
        if entry.id:
            kept = old[entry.id]
            if kept.fuzzy and not kept.previous_id and entry.id in previous:
                kept.previous_id = previous[entry.id]  # still fuzzy: keep showing the English it was made from
            ordered[entry.id] = kept
    ordered.obsolete = old.obsolete
    return ordered


def update_chapter(stem: str) -> Catalog:
    """Bring chapter ``stem``'s catalog in step with its English and write it; the catalog written."""
    path = catalog_path(stem)
    catalog = merged(read_catalog(path) if path.exists() else None, template(stem))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(po_text(catalog))
    return catalog


# --- the course layer's catalog ---------------------------------------------------------------


def widget_titles() -> Iterator[tuple[str, int, str]]:
    """The ``title="..."`` literals the chapters' code passes (shown by a widget, through ``_``)."""
    for path in sorted(build.SOURCES.glob("[0-9][0-9]_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                for kw in node.keywords:
                    if kw.arg == "title" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                        yield f"notebooks/src/{path.name}", kw.value.lineno, kw.value.value


def marked_strings(source: str) -> Iterator[tuple[int, str | tuple[str, str]]]:
    """The literals ``source`` passes to ``_``, ``N_`` and ``ngettext`` (singular, plural), with their lines.

    Read with ``ast``, not a tokenizer: a call inside an f-string's braces counts too.
    """
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in KEYWORDS):
            continue
        args = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if node.func.id == "ngettext" and len(args) >= 2:
            yield node.lineno, (args[0], args[1])
        elif node.func.id != "ngettext" and args:
            yield node.lineno, args[0]


def course_template() -> Catalog:
    """Every string the course layer marks, and the chapters' widget titles."""
    catalog = new_catalog(COURSE_DOMAIN)
    for path in sorted(COURSE.rglob("*.py")):
        where = str(path.relative_to(ROOT))
        for lineno, message in sorted(marked_strings(path.read_text(encoding="utf-8")), key=lambda m: m[0]):
            if message:
                catalog.add(message, locations=[(where, lineno)])
    for where, lineno, message in widget_titles():
        catalog.add(message, locations=[(where, lineno)])
    return catalog


def update_course() -> Catalog:
    """Bring the course catalog in step with the marked strings; write the ``.po`` and its ``.mo``."""
    catalog = merged(read_catalog(COURSE_PO) if COURSE_PO.exists() else None, course_template())
    COURSE_PO.parent.mkdir(parents=True, exist_ok=True)
    COURSE_PO.write_bytes(po_text(catalog))
    COURSE_MO.write_bytes(mo_bytes(read_catalog(COURSE_PO)))
    return catalog


# --- what a catalog says -----------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """An entry that keeps a catalog from being complete: where it is, and what is wrong."""

    where: str
    what: str
    msgid: str

    def __str__(self) -> str:
        first = self.msgid.strip().splitlines()[0] if self.msgid.strip() else ""
        return f"{self.where}: {self.what}: {first[:90]!r}"


def location(catalog_file: Path, entry: Message) -> str:
    cells = ", ".join(f"{f}:{n}" for f, n in entry.locations) or "no cell"
    return f"{catalog_file.relative_to(ROOT)} ({cells})"


def problems(catalog: Catalog, path: Path) -> list[Problem]:
    """The entries of ``catalog`` that are untranslated or fuzzy (each named by its cells)."""
    out = []
    for entry in catalog:
        if not entry.id:
            continue
        if entry.fuzzy:
            out.append(
                Problem(location(path, entry), "fuzzy (its English changed; review and remove the flag)", entry.id)
            )
        elif not entry.string:
            out.append(Problem(location(path, entry), "untranslated", str(entry.id)))
    return out


def out_of_step(catalog: Catalog | None, fresh: Catalog, path: Path) -> list[Problem]:
    """What ``make translations`` would change: English cells without an entry, entries without a cell."""
    if catalog is None:
        return [Problem(str(path.relative_to(ROOT)), "no catalog (run `make translations`)", "")]
    have = {e.id for e in catalog if e.id}
    want = {e.id for e in fresh if e.id}
    new = [Problem(location(path, fresh[m]), "English cell with no entry", str(m)) for m in want - have]
    gone = [Problem(location(path, catalog[m]), "entry whose English cell is gone", str(m)) for m in have - want]
    return new + gone


def translation(catalog: Catalog | None, text: str) -> str | None:
    """The translation of ``text``, or ``None`` when the catalog has none or only a fuzzy one."""
    entry = catalog.get(text) if catalog is not None else None
    if entry is None or entry.fuzzy or not entry.string:
        return None
    return str(entry.string)


def marked(text: str, mark: str) -> str:
    """English ``text`` under ``mark``; after its heading line when it starts with one (titles stay titles)."""
    first, sep, rest = text.partition("\n")
    if re.match(r"#{1,6} ", first):
        return f"{first}\n\n{mark}\n\n{rest.lstrip()}" if sep else f"{first}\n\n{mark}"
    return f"{mark}\n\n{text}"


def relinked(text: str) -> str:
    """Links out of ``notebooks/`` one level further up: a Chinese chapter lives in ``notebooks/zh/``."""
    return re.sub(r"(\]\(|href=\"|src=\")\.\./", r"\1../../", text)


def translated_notebook(stem: str, catalog: Catalog | None = None) -> nbformat.NotebookNode:
    """Chapter ``stem`` in Chinese, unexecuted: the English code, the catalog's prose, ``i18n.use("zh_CN")``.

    ``catalog`` defaults to the chapter's catalog (none yet: every cell English and marked).
    """
    if catalog is None:
        path = catalog_path(stem)
        catalog = read_catalog(path) if path.exists() else None
    nb = english(stem)
    for cell in nb.cells:
        if cell.cell_type != "markdown":
            continue
        text = translation(catalog, cell.source)
        if text is None:
            entry = catalog.get(cell.source) if catalog is not None else None
            text = marked(cell.source, FUZZY_MARK if entry is not None and entry.fuzzy else MISSING_MARK)
        cell.source = relinked(text)
        # The student copy's held-back phrases are English; the Chinese prose holds none of them.
        cell.metadata.pop("holdback", None)
    first_code = next((i for i, c in enumerate(nb.cells) if c.cell_type == "code"), len(nb.cells))
    setup = nbformat.v4.new_code_cell(SETUP)
    setup["id"] = f"{stem[:2]}-locale"
    setup.metadata["tags"] = ["core", LOCALE_TAG]
    setup.metadata["slideshow"] = {"slide_type": "skip"}
    nb.cells.insert(first_code, setup)
    nb.metadata["language"] = LANG
    return nb


def chinese_characters(text: str) -> int:
    """The CJK ideographs in ``text`` (punctuation not counted)."""
    return len(re.findall(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]", text))


GLOSSARY = ROOT / "docs" / "glossary.zh.md"
CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


@dataclass(frozen=True)
class Term:
    """One row of the glossary: the English term, its one rendering (or several, for its forms), the forbidden ones."""

    english: str
    renderings: tuple[str, ...]
    forbidden: tuple[str, ...]


def _cells(row: str) -> list[str]:
    return [c.strip() for c in row.strip().strip("|").split("|")]


def _split(cell: str) -> tuple[str, ...]:
    return tuple(t.strip() for t in re.split(r"\s*[,/，、]\s*", cell) if t.strip())


def glossary(text: str | None = None) -> list[Term]:
    """The terms of ``docs/glossary.zh.md``: its table ``| English | 中文 | 不要用 | 说明 |``, one row a term."""
    text = GLOSSARY.read_text(encoding="utf-8") if text is None else text
    rows = [line for line in text.splitlines() if line.lstrip().startswith("|")]
    if len(rows) < 3 or _cells(rows[0])[:3] != ["English", "中文", "不要用"]:
        raise ValueError(f"{GLOSSARY.name}: no table with the columns | English | 中文 | 不要用 | 说明 |")
    terms = []
    for n, row in enumerate(rows[2:], start=3):
        cells = _cells(row)
        if len(cells) < 3 or not cells[0] or not cells[1]:
            raise ValueError(f"{GLOSSARY.name}: table row {n} needs an English term and its rendering: {row!r}")
        terms.append(Term(cells[0], _split(cells[1]), _split(cells[2])))
    return terms


def without_code(text: str) -> str:
    """``text`` with its inline code spans and fenced blocks blanked (code is never translated)."""
    return CODE_SPAN.sub(" ", FENCE.sub(" ", text))


def forbidden_uses(text: str, terms: list[Term]) -> list[tuple[str, str]]:
    """Each ``(forbidden rendering, its term)`` found in the prose of ``text``.

    An occurrence inside one of the glossary's own renderings is not one (``不透明块`` holds ``透明块``).
    """
    prose = without_code(text)
    allowed = [r for t in terms for r in t.renderings if r]
    covered = [False] * len(prose)
    for r in allowed:
        for m in re.finditer(re.escape(r), prose):
            covered[m.start() : m.end()] = [True] * (m.end() - m.start())
    found = []
    for t in terms:
        for bad in t.forbidden:
            for m in re.finditer(re.escape(bad), prose):
                if not all(covered[m.start() : m.end()]):
                    found.append((bad, t.english))
                    break
    return found


FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def code_spans(text: str) -> list[str]:
    """The inline code spans of ``text``, as written (backticks included); fenced blocks are not inline code."""
    return [m.group(0) for m in CODE_SPAN.finditer(FENCE.sub(" ", text))]


def glossary_problems(catalog: Catalog, path: Path, terms: list[Term]) -> list[Problem]:
    """Translations that use a forbidden rendering, or lose (or alter) an inline code span of their English."""
    out = []
    for entry in catalog:
        if not entry.id or not entry.string:
            continue
        msgid, msgstr = str(entry.id), str(entry.string)
        for bad, term in forbidden_uses(msgstr, terms):
            out.append(Problem(location(path, entry), f"uses {bad!r}, which the glossary forbids for {term!r}", msgid))
        missing = [s for s in dict.fromkeys(code_spans(msgid)) if s not in msgstr]
        if missing:
            out.append(Problem(location(path, entry), f"code spans changed or lost: {', '.join(missing)}", msgid))
    return out


def check() -> list[Problem]:
    """Every problem of every catalog: out of step with the English, untranslated, fuzzy, against the glossary."""
    found: list[Problem] = []
    for ch in build.chapters():
        path = catalog_path(ch.stem)
        catalog = read_catalog(path) if path.exists() else None
        found += out_of_step(catalog, template(ch.stem), path)
        if catalog is not None:
            found += problems(catalog, path)
    course = read_catalog(COURSE_PO) if COURSE_PO.exists() else None
    found += out_of_step(course, course_template(), COURSE_PO)
    if course is not None:
        found += problems(course, COURSE_PO)
    terms = glossary()
    for path in [*(catalog_path(ch.stem) for ch in build.chapters()), COURSE_PO]:
        if path.exists():
            found += glossary_problems(read_catalog(path), path, terms)
    return found


def edition_stats() -> list[str]:
    """Per built Chinese chapter: CJK characters in its prose (markdown) and in its outputs."""
    lines = [f"{'notebooks/zh/':<34}{'prose':>8}{'outputs':>8}"]
    for ch in build.chapters():
        path = ZH / ch.ipynb
        if not path.exists():
            lines.append(f"{ch.stem:<34}{'(none)':>8}")
            continue
        nb = nbformat.read(path, as_version=4)
        prose = sum(chinese_characters(c.source) for c in nb.cells if c.cell_type == "markdown")
        outputs = sum(
            chinese_characters(str(o.get("text", "")) + "".join(str(v) for v in o.get("data", {}).values()))
            for c in nb.cells
            if c.cell_type == "code"
            for o in c.outputs
        )
        lines.append(f"{ch.stem:<34}{prose:>8}{outputs:>8}")
    return lines


def stats_head(width: int) -> str:
    """The header of a ``stats_row`` table whose first column is ``width`` characters wide."""
    return f"{'catalog':<{width}}{'entries':>8}{'done':>6}{'fuzzy':>6}{'empty':>6}{'汉字':>8}"


def stats_row(name: str, catalog: Catalog | None, width: int) -> str:
    """One catalog's entries, translated, fuzzy, empty, and the CJK characters of its translations
    (every column 0 for a catalog that does not exist yet)."""
    entries = [e for e in catalog if e.id] if catalog is not None else []
    done = [e for e in entries if e.string and not e.fuzzy]
    fuzzy = sum(1 for e in entries if e.fuzzy)
    empty = sum(1 for e in entries if not e.string)
    chars = sum(chinese_characters(str(e.string)) for e in done)
    return f"{name:<{width}}{len(entries):>8}{len(done):>6}{fuzzy:>6}{empty:>6}{chars:>8}"


def stats() -> list[str]:
    """Per catalog: entries, translated, fuzzy, empty, and the CJK characters of its translations."""
    lines = [stats_head(34)]
    paths = [catalog_path(ch.stem) for ch in build.chapters()] + [COURSE_PO]
    for path in paths:
        if not path.exists():
            lines.append(f"{path.stem:<34}{'(none)':>8}")
            continue
        lines.append(stats_row(path.stem, read_catalog(path), 34))
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="write nothing; list what is out of step, untranslated, fuzzy")
    ap.add_argument("--stats", action="store_true", help="write nothing; count the entries of every catalog")
    args = ap.parse_args(argv)
    if args.stats:
        print("\n".join([*stats(), "", *edition_stats(), "", f"glossary: {len(glossary())} terms"]))
        return 0
    if args.check:
        found = check()
        print("\n".join(str(p) for p in found) or "every catalog is in step with the English and complete")
        return 1 if found else 0
    for ch in build.chapters():
        catalog = update_chapter(ch.stem)
        print(f"{catalog_path(ch.stem).relative_to(ROOT)}: {len([e for e in catalog if e.id])} entries")
    course = update_course()
    print(f"{COURSE_PO.relative_to(ROOT)}: {len([e for e in course if e.id])} entries, compiled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
