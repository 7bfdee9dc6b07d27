"""The course layer's language: what a learner reads in an output, in English or in Chinese.

This module owns the gettext domain ``msgmodel_course``: every user-facing string of the course
layer (widget labels, exercise tasks, feedback and hints, the quiz, the interview drill, the
chapters' tables) is marked here and looked up in the catalog of the chapter's language.

    from msgmodel.course import i18n
    i18n.use("zh_CN")          # the first code cell of every Chinese chapter (notebooks/zh/)

``_(text)`` translates now, in the language in use. ``N_(text)`` only marks a string for the
catalog, for text defined at import time (an exercise's task, a quiz question): the code that
shows it calls ``_`` on it then, so the language chosen later still applies. ``ngettext`` picks
the singular or plural form (Chinese has one form).

The catalog is ``msgmodel/course/locale/zh_CN/LC_MESSAGES/msgmodel_course.po``; its compiled
``.mo`` beside it is committed (``make translations`` writes both; the runtime needs no Babel),
and ``tests/test_zh_edition.py`` checks that the ``.mo`` is the ``.po`` compiled, that every marked
string has a translation and none is fuzzy. English is the source language: ``use("en")`` shows
the strings as written. The API's own error texts (``msgmodel.api``, ``validate``'s messages) are
never translated: they are the API's words, quoted verbatim in either language.
"""

from __future__ import annotations

import gettext
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

__all__ = ["DOMAIN", "LANGUAGES", "LOCALE_DIR", "N_", "_", "join", "language", "ngettext", "use", "using"]

DOMAIN: Final = "msgmodel_course"
LOCALE_DIR: Final = Path(__file__).resolve().with_name("locale")
LANGUAGES: Final = ("en", "zh_CN")
"""The languages a chapter may choose: English (the source) and Simplified Chinese."""

_state: dict[str, gettext.NullTranslations | str] = {"language": "en", "catalog": gettext.NullTranslations()}


def _catalog() -> gettext.NullTranslations:
    catalog = _state["catalog"]
    assert isinstance(catalog, gettext.NullTranslations)
    return catalog


def use(lang: str) -> None:
    """Show the course layer's outputs in ``lang`` from now on (``"en"`` or ``"zh_CN"``)."""
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}: the course speaks {', '.join(LANGUAGES)}")
    if lang == "en":
        catalog: gettext.NullTranslations = gettext.NullTranslations()
    else:
        path = LOCALE_DIR / lang / "LC_MESSAGES" / f"{DOMAIN}.mo"
        if not path.is_file():
            raise FileNotFoundError(f"{path}: the compiled catalog is missing (run `make translations`)")
        with path.open("rb") as f:
            catalog = gettext.GNUTranslations(f)
    _state["language"], _state["catalog"] = lang, catalog


def language() -> str:
    """The language in use (``"en"`` until a chapter calls ``use``)."""
    lang = _state["language"]
    assert isinstance(lang, str)
    return lang


@contextmanager
def using(lang: str) -> Iterator[None]:
    """``use(lang)`` for the duration of a ``with`` block, then the language before it again."""
    before = language()
    use(lang)
    try:
        yield
    finally:
        use(before)


def _(message: str) -> str:
    """``message`` in the language in use (itself when the catalog has no translation for it)."""
    return _catalog().gettext(message) if message else message


def N_(message: str) -> str:
    """``message`` unchanged: marks it for the catalog; whoever shows it later calls ``_`` on it."""
    return message


_FULL_WIDTH: Final = "，。：；！？）】」』、…"


def join(*parts: str) -> str:
    """``parts`` joined by spaces, except after or before Chinese full-width punctuation (``。``, ``：``, ...).

    English sentences are glued with a space; a Chinese one ending in ``。`` needs none before the next.
    """
    out = ""
    for part in (p for p in parts if p):
        if out and not (out[-1] in _FULL_WIDTH or out[-1].isspace() or part[0] in _FULL_WIDTH or part[0].isspace()):
            out += " "
        out += part
    return out


def ngettext(singular: str, plural: str, n: int) -> str:
    """``singular`` or ``plural`` by ``n``, in the language in use."""
    return _catalog().ngettext(singular, plural, n)
