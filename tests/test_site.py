"""The documentation site (``make html``): it builds with no warning, every page is there, every local link
and anchor resolves, and no page loads anything from another host. The Chinese site, ``zh/`` inside it,
has the same pages at the same paths, every page of either links to its twin, and its search index
finds Chinese words (segmented by jieba) in the chapters that use them.

The site is built once per session, fresh (``sphinx-build -E -W``), into a temporary directory by
``scripts/build_site.py``; every HTML file of it is parsed with ``html.parser``. Needs Sphinx and
myst-nb (``requirements-dev.txt``). The browser read of the site is ``tests/ui/test_static_site.py``.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
import build_site  # noqa: E402

if importlib.util.find_spec("sphinx") is None or importlib.util.find_spec("myst_nb") is None:
    pytest.skip("the site needs Sphinx and myst-nb (pip install -r requirements-dev.txt)", allow_module_level=True)

pytestmark = pytest.mark.filterwarnings("ignore:.myst_parser.*is deprecated")

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
CHAPTERS = sorted(ROOT.glob("notebooks/[0-9][0-9]_*.ipynb"))
ZH_DOC = build_site.ZH_DOC_SUFFIX


@dataclass
class Page:
    """What the link checker needs of one HTML file: its ids, its links, what it loads, its headings."""

    ids: set[str] = field(default_factory=set)
    links: list[str] = field(default_factory=list)  # <a href>, <area href>
    loads: list[tuple[str, str]] = field(default_factory=list)  # (tag, url) of what the browser fetches
    headings: list[tuple[str, str]] = field(default_factory=list)  # (h1..h6, text)


LOADS = {"script": "src", "img": "src", "iframe": "src", "source": "src", "embed": "src", "video": "src"}


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()
        self._heading: tuple[str, list[str]] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        for key in ("id", "name"):
            if a.get(key) and (key == "id" or tag == "a"):
                self.page.ids.add(a[key])
        if tag in ("a", "area") and "href" in a:
            self.page.links.append(a["href"])
        elif tag == "link" and "href" in a:
            self.page.loads.append((f"link rel={a.get('rel', '')}", a["href"]))
        elif tag in LOADS and a.get(LOADS[tag]):
            self.page.loads.append((tag, a[LOADS[tag]]))
        if re.fullmatch(r"h[1-6]", tag):
            self._heading = (tag, [])

    def handle_data(self, data: str) -> None:
        if self._heading:
            self._heading[1].append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._heading and tag == self._heading[0]:
            self.page.headings.append((tag, "".join(self._heading[1]).strip()))
            self._heading = None


def read_page(path: Path) -> Page:
    reader = _Reader()
    reader.feed(path.read_text(encoding="utf-8"))
    reader.close()
    return reader.page


def is_external(url: str) -> bool:
    return bool(urlsplit(url).scheme) or url.startswith("//")


@pytest.fixture(scope="session")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build_site.build(out, fresh=True)  # raises SystemExit on any Sphinx warning (-W)
    return out


@pytest.fixture(scope="session")
def pages(site: Path) -> dict[Path, Page]:
    return {p: read_page(p) for p in sorted(site.rglob("*.html"))}


def test_every_page_is_built(site: Path) -> None:
    expected = ["index.html", "README.html", "bench/RESULTS.html", "search.html", "api/index.html"]
    expected += [f"notebooks/{p.stem}.html" for p in CHAPTERS]
    expected += [f"docs/{p.stem}.html" for p in sorted((ROOT / "docs").glob("*.md")) if not p.name.endswith(ZH_DOC)]
    expected += [f"api/{m}.html" for m in build_site.reference_modules()]
    missing = [e for e in expected if not (site / e).is_file()]
    assert not missing
    assert len(CHAPTERS) >= 8 and "api/msgmodel.core.message.html" in expected


def test_every_local_link_and_anchor_resolves(site: Path, pages: dict[Path, Page]) -> None:
    dead: list[str] = []
    checked = 0
    for path, page in pages.items():
        for url in page.links + [u for _, u in page.loads]:
            if is_external(url):
                continue
            parts = urlsplit(url)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            where = f"{path.relative_to(site)} → {url}"
            checked += 1
            if not target.is_file():
                dead.append(f"{where}: no such file")
            elif parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else read_page(target).ids
                if unquote(parts.fragment) not in ids:
                    dead.append(f"{where}: no id {parts.fragment!r} on that page")
            if target.suffix in (".ipynb", ".md") and "_downloads" not in target.relative_to(site).parts:
                dead.append(f"{where}: links to a source file, not to its page")
    assert checked > 1000
    assert not dead, "\n".join(dead)


def test_no_page_loads_anything_from_another_host(site: Path, pages: dict[Path, Page]) -> None:
    external = [f"{p.relative_to(site)}: <{tag}> {url}" for p, page in pages.items() for tag, url in page.loads]
    external = [e for e in external if is_external(e.rsplit(" ", 1)[1])]
    for css in site.rglob("*.css"):  # fonts and @imports of the theme's stylesheets
        for url in re.findall(r"""(?:url\(|@import\s+)["']?((?:https?:)?//[^"')\s]+)""", css.read_text("utf-8")):
            external.append(f"{css.relative_to(site)}: {url}")
    assert not external, "\n".join(external)
    assert any(tag == "script" for page in pages.values() for tag, _ in page.loads)  # the reader saw scripts


def _widget_fallbacks(chapter: Path) -> Iterator[str]:
    nb = nbformat.read(chapter, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET_VIEW in data and "text/html" in data:
                yield "".join(data["text/html"])


def test_chapters_show_the_widgets_static_fallback(site: Path) -> None:
    seen = 0
    for chapter in CHAPTERS:
        text = (site / "notebooks" / f"{chapter.stem}.html").read_text(encoding="utf-8")
        for fallback in _widget_fallbacks(chapter):
            assert fallback.strip() in text, f"{chapter.name}: a widget's text/html fallback is not on its page"
            seen += 1
        assert WIDGET_VIEW not in text and "jupyter-widgets" not in text, chapter.name
    assert seen >= 4  # chapters 01, 02, 05 and 06 have widgets


def test_the_drills_model_answers_are_on_the_site(site: Path) -> None:
    """Chapter 06's drill: every model answer is on the static page (folded), not only behind the live button."""
    import html

    from msgmodel.course.exercises.ch06 import DRILL

    text = (site / "notebooks" / "06_interview_followups.html").read_text(encoding="utf-8")
    missing = [d.question for d in DRILL if html.escape(d.answer) not in text]
    assert not missing, f"model answers missing from the site: {missing}"


def test_chapters_have_one_title_and_no_bogus_headings(site: Path, pages: dict[Path, Page]) -> None:
    for chapter in CHAPTERS:
        page = pages[site / "notebooks" / f"{chapter.stem}.html"]
        titles = [text for tag, text in page.headings if tag == "h1"]
        assert len(titles) == 1, (chapter.name, titles)
        # a wrapped markdown line that starts with "#4324](…" once became a heading
        bogus = [text for _, text in page.headings if "](" in text or re.match(r"\d+\]", text)]
        assert not bogus, (chapter.name, bogus)


def test_chapter_links_in_jupyter_style_reach_the_heading(site: Path, pages: dict[Path, Page]) -> None:
    """``00_start_here.ipynb#Chapter-map`` (JupyterLab's id) becomes a link to the heading's id on the site."""
    index = pages[site / "notebooks" / "01_orphan_tool_result.html"]
    to_map = [u for u in index.links if u.startswith("00_start_here.html#")]
    assert to_map and all(u == "00_start_here.html#chapter-map" for u in to_map), to_map


def test_api_reference_documents_the_model(site: Path) -> None:
    text = (site / "api" / "msgmodel.core.message.html").read_text(encoding="utf-8")
    for name in ("user_text", "tool_result_msg", "blocks_of", "from_json", "ToolUseBlock", "Message"):
        assert f'id="msgmodel.core.message.{name}"' in text, name
    assert (site / "_modules" / "msgmodel" / "core" / "message.html").is_file()  # viewcode: the source


def test_a_link_to_a_module_file_opens_its_source_page(pages: dict[Path, Page], site: Path) -> None:
    """``index.md`` links to ``msgmodel/core/message.py``: on the site, the highlighted source, not a download."""
    links = pages[site / "index.html"].links
    assert "_modules/msgmodel/core/message.html" in links, links
    assert not any("_downloads/" in u and u.endswith("message.py") for u in links)


def test_the_cheat_sheet_errors_wrap_on_the_site(site: Path) -> None:
    """The verbatim 400s of the cheat sheet are ```text blocks: on the site they wrap instead of scrolling sideways."""
    page = (site / "docs" / "cheatsheet.html").read_text(encoding="utf-8")
    assert 'class="highlight-text' in page and "_static/msgmodel.css" in page
    css = (site / "_static" / "msgmodel.css").read_text(encoding="utf-8")
    assert re.search(r"div\.highlight-text pre\s*\{[^}]*white-space:\s*pre-wrap", css), css


@pytest.mark.parametrize("which", ["out", "beside"])
def test_the_build_refuses_to_empty_a_folder_it_did_not_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    # Before, build() emptied whatever --out named (and "<out>-src" beside it) with shutil.rmtree:
    # `python scripts/build_site.py --out docs` deleted the repository's docs/.
    import sphinx.cmd.build

    ran: list[list[str]] = []
    monkeypatch.setattr(sphinx.cmd.build, "build_main", lambda args: ran.append(args) or 0)
    mine = tmp_path / ("www" if which == "out" else "www-src")
    mine.mkdir()
    (mine / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit, match="refusing to empty"):
        build_site.build(tmp_path / "www")
    assert (mine / "notes.txt").read_text() == "mine" and not ran


# --- the Chinese site -------------------------------------------------------------------------------


def _language_switch(path: Path) -> tuple[str, str]:
    """The language switch of a page: (the language it says the page is in, the link to the other one)."""
    text = path.read_text(encoding="utf-8")
    current = re.search(r'class="mm-language-current"[^>]*>([^<]+)<', text)
    other = re.search(r'<a class="mm-language-other" href="([^"]+)"', text)
    assert current and other, f"{path}: no language switch"
    return current[1], other[1]


def test_the_chinese_site_has_every_page_of_the_english_one(site: Path) -> None:
    zh = site / build_site.ZH
    english = {p.relative_to(site) for p in site.rglob("*.html") if not p.is_relative_to(zh)}
    chinese = {p.relative_to(zh) for p in zh.rglob("*.html")}
    assert len(english) >= 40
    assert english == chinese, (sorted(english - chinese), sorted(chinese - english))


def test_every_page_switches_language_to_the_same_page(site: Path) -> None:
    zh = site / build_site.ZH
    for path in sorted(site.rglob("*.html")):
        here, href = _language_switch(path)
        twin = (path.parent / href).resolve()
        if path.is_relative_to(zh):
            assert (here, twin) == ("中文", site / path.relative_to(zh)), path
        else:
            assert (here, twin) == ("English", zh / path.relative_to(site)), path
        assert twin.is_file(), f"{path.relative_to(site)} → {href}"


def test_the_chinese_pages_are_the_chinese_editions(site: Path, pages: dict[Path, Page]) -> None:
    zh = site / build_site.ZH
    staged = build_site.chinese_pages()
    chapters = [p for p in staged if p.startswith("notebooks/")]
    assert len(chapters) == len(CHAPTERS), "every chapter has its Chinese edition in notebooks/zh/"
    assert {
        "index.md",
        "docs/teacher-guide.md",
        "docs/cheatsheet.md",
        "docs/interview-answers.md",
        "docs/exit-ticket.md",
    } <= set(staged)
    for page, source in staged.items():
        html_path = zh / (page.rsplit(".", 1)[0] + ".html")
        assert 'lang="zh-CN"' in html_path.read_text(encoding="utf-8")[:300], page
        if source.suffix == ".ipynb":
            cells = nbformat.read(source, as_version=4).cells
            title = next(c.source for c in cells if c.cell_type == "markdown" and c.source.startswith("# "))
            heading = build_site.heading_text(title.splitlines()[0][2:])
            h1 = [text.rstrip("¶") for tag, text in pages[html_path].headings if tag == "h1"]
            assert h1 == [heading], (page, h1, heading)


def _search_index(site: Path) -> tuple[list[str], dict[str, list[int]]]:
    """The Chinese site's search index: its documents, and each word's documents (text and titles)."""
    import json

    text = (site / build_site.ZH / "searchindex.js").read_text(encoding="utf-8")
    index = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    words: dict[str, list[int]] = {}
    for table in ("terms", "titleterms"):
        for word, docs in index[table].items():
            words.setdefault(word, []).extend([docs] if isinstance(docs, int) else docs)
    return index["docnames"], words


@pytest.mark.parametrize("word", ["判别联合", "压缩", "孤儿", "工具结果"])
def test_the_chinese_search_finds_the_chapters_that_use_a_word(site: Path, word: str) -> None:
    """jieba segments the Chinese pages (the glossary's terms are its user dictionary): a word is found as typed."""
    docnames, words = _search_index(site)
    found = {docnames[i] for i in words.get(word, [])}
    using = set()
    for chapter in sorted((ROOT / "notebooks" / build_site.ZH).glob("[0-9][0-9]_*.ipynb")):
        cells = nbformat.read(chapter, as_version=4).cells
        if any(word in c.source for c in cells if c.cell_type == "markdown"):
            using.add(f"notebooks/{chapter.stem}")
    assert using, f"no Chinese chapter uses {word}"
    assert using <= found, f"{word}: not found in {sorted(using - found)}"


def test_the_search_segments_the_glossary_terms_as_words(tmp_path: Path) -> None:
    """Without the dictionary jieba cuts 判别联合 in two, and a reader's query for it finds nothing."""
    from sphinx.search.zh import SearchChinese

    words = build_site.jieba_dictionary(tmp_path / "words.txt")
    assert "判别联合 1000 n" in words.read_text(encoding="utf-8").splitlines()
    assert "判别联合" in SearchChinese({"dict": str(words)}).split("用判别联合表示内容块")


def test_the_chinese_search_page_defines_the_stemmer_it_uses(site: Path) -> None:
    """Sphinx 9.0 named a ``ChineseStemmer`` that no file defines, and the Chinese search never finished
    (sphinx-doc/sphinx#14229); ``msgmodel_site.SearchChinese`` names the English stemmer it loads."""
    for lang_dir in (site, site / build_site.ZH):
        script = (lang_dir / "_static" / "language_data.js").read_text(encoding="utf-8")
        named = re.search(r"window\.Stemmer = (\w+);", script)
        assert named and re.search(rf"\b(?:var|let|const)\s+{named[1]}\s*=", script), lang_dir


def test_the_readmes_link_to_each_other_across_the_sites(site: Path, pages: dict[Path, Page]) -> None:
    """README.md links to README.zh-CN.md and notebooks/zh/: on the site, to the Chinese site's pages; the
    Chinese README's "English" link (to README.md, whose place it holds there) to the English README."""
    english = pages[site / "README.html"].links
    assert "zh/README.html" in english and "zh/notebooks/00_start_here.html" in english, english
    chinese = pages[site / build_site.ZH / "README.html"].links
    assert "../README.html" in chinese
    chapter_map = pages[site / build_site.ZH / "notebooks" / "00_start_here.html"].links
    assert chapter_map.count("../../notebooks/00_start_here.html") == 1  # the switch; its own link stays Chinese
    guide = pages[site / build_site.ZH / "docs" / "teacher-guide.html"].links
    assert "../notebooks/04_unified_model.html" in guide  # notebooks/zh/04_…: the Chinese chapter, here
    assert "../../notebooks/04_unified_model.html" in guide  # notebooks/04_… (英文版): the English one
