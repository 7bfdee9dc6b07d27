"""The live API's public captures, as data: validate reproduces each one byte for byte.

``msgmodel/data/live_api_errors.json`` holds the captures that ``docs/api-rules.md`` quotes; this test
checks that the data says what the page says (each quoted text appears there verbatim) and that
``validate`` agrees with every captured answer. The open questions stay apart, with no live answer.
"""

from __future__ import annotations

import importlib.resources
import json
import re
from pathlib import Path

import pytest

from msgmodel.course.live_api import DATA, Agreement, Capture, live_api_agreement, load_captures
from msgmodel.course.teaching import live_api_agreement as from_teaching

ROOT = Path(__file__).resolve().parent.parent
RULES = (ROOT / "docs" / "api-rules.md").read_text(encoding="utf-8")
RAW = json.loads(DATA.read_text(encoding="utf-8"))
CAPTURES, QUESTIONS = load_captures()


def _quoted_in_rules() -> set[str]:
    """Every code span of docs/api-rules.md (single or double backticks)."""
    spans = set(re.findall(r"``(.+?)``", RULES))
    spans |= set(re.findall(r"(?<!`)`([^`]+)`(?!`)", RULES))
    return spans


@pytest.mark.parametrize("capture", CAPTURES, ids=lambda c: c.id)
def test_validate_agrees_with_every_live_capture_byte_for_byte(capture: Capture) -> None:
    assert capture.validate_text == capture.live_answer, (
        f"{capture.id}: the live API said {capture.live_answer!r}, validate says {capture.validate_text!r}"
    )


@pytest.mark.parametrize("row", RAW["captures"], ids=lambda r: r["id"])
def test_each_captured_text_is_the_one_docs_api_rules_quotes(row: dict[str, object]) -> None:
    assert row["kind"] == "captured"
    quoted, fill, live = str(row["quoted"]), row["fill"], str(row["live_text"])
    assert isinstance(fill, dict)
    if row["live_status"] == 200:
        assert quoted == live == "" and not fill
        return
    assert row["live_status"] == 400
    assert quoted in _quoted_in_rules(), f"{row['id']}: docs/api-rules.md does not quote {quoted!r}"
    filled = quoted
    for placeholder, value in fill.items():
        assert placeholder in quoted, f"{row['id']}: {placeholder!r} is not in the quoted text"
        filled = filled.replace(placeholder, str(value))
    assert filled == live, f"{row['id']}: live_text is not the quoted text with its parts filled in"


def test_every_capture_names_its_public_source() -> None:
    for row in RAW["captures"]:
        source = row["source"]
        assert source["title"], row["id"]
        assert all(u.startswith("https://github.com/") for u in source["urls"]), row["id"]
        if not source["urls"]:  # the two public write-ups whose repository could not be identified
            assert "could not be identified" in source["title"], row["id"]


def test_open_questions_are_apart_and_are_the_pages_open_questions() -> None:
    assert RAW["open"] and all(q["kind"] == "open" for q in RAW["open"])
    assert not {q["id"] for q in RAW["open"]} & {c["id"] for c in RAW["captures"]}
    for q in RAW["open"]:
        assert re.search(rf"\*\*{q['id']}\.", RULES), f"{q['id']} is not an open question of docs/api-rules.md"
        assert "live_text" not in q and "live_status" not in q, "an open question has no live answer"


def test_the_table_shows_every_capture_and_the_open_questions_separately() -> None:
    table = live_api_agreement()
    text, page = repr(table), table._repr_html_()
    assert text == repr(from_teaching()), "the same table on every run"
    assert text.startswith(f"validate vs the live API: {len(CAPTURES)} of {len(CAPTURES)} public captures agree")
    assert text.count("\n✓ ") + text.startswith("✓") == len(CAPTURES) and "✗" not in text
    head, _, tail = text.partition("\n\nOpen questions:")
    assert tail, "the open questions come after the captures, under their own heading"
    for c in CAPTURES:
        assert c.live_answer in head and c.source in head
    for q in QUESTIONS:
        assert q.question in tail and q.question not in head
    assert page.count('class="ok"') == len(CAPTURES) and "mm-live-open" in page
    assert len(table.open_questions) == len(RAW["open"])


def test_a_disagreement_shows_as_a_cross() -> None:
    c = CAPTURES[0]
    wrong = Capture(**{**c.__dict__, "validate_text": "200 (accepted)"})
    table = Agreement([wrong], [])
    assert repr(table).startswith("validate vs the live API: 0 of 1 public captures agree")
    assert "\n✗ " in repr(table) and "validate: 200 (accepted)" in repr(table)
    assert 'class="ko"' in table._repr_html_()


def test_the_data_ships_with_the_package() -> None:
    assert importlib.resources.files("msgmodel").joinpath("data/live_api_errors.json").is_file()
    assert '"data/*"' in (ROOT / "pyproject.toml").read_text()


# ---------------------------------------------------------------------------------------
# What the project says of the validator is exactly what these captures show
# ---------------------------------------------------------------------------------------

_WORDS = {"six": 6, "fifteen": 15}
CLAIMS = {
    "README.md": ROOT / "README.md",
    "pyproject.toml": ROOT / "pyproject.toml",
    "the site's front page": ROOT / "docs" / "site" / "index.md",
    "chapter 00": ROOT / "notebooks" / "src" / "00_start_here.py",
    "chapter 01": ROOT / "notebooks" / "src" / "01_orphan_tool_result.py",
}


@pytest.mark.parametrize("where", CLAIMS)
def test_every_claim_of_agreement_names_the_captures_it_rests_on(where: str) -> None:
    """The validator "agrees with the live API" only as far as the shipped captures show: say how many, not "every"."""
    text = re.sub(r"\s+", " ", CLAIMS[where].read_text(encoding="utf-8").replace("\n# ", " "))
    counts = [int(n) for n in re.findall(r"\b(\d+) (?:such )?(?:public )?captures\b", text)]
    assert counts, f"{where} does not say how many public captures the validator matches"
    assert set(counts) == {len(CAPTURES)}, f"{where} says {counts} captures; the data holds {len(CAPTURES)}"
    assert all(c.agrees for c in CAPTURES)
    for said in re.findall(r"\((\d+|six) open questions\)", text):
        assert (int(said) if said.isdigit() else _WORDS[said]) == len(QUESTIONS), where
    for wide in ("agrees with the live Anthropic Messages API, word for word", "every public capture"):
        assert wide not in text, f"{where} claims more than the captures show: {wide!r}"
