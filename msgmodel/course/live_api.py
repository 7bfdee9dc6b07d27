"""The live API's captured answers beside the local validator's: the evidence for "byte for byte".

This module owns the comparison of ``msgmodel.core.protocol`` with what the live Messages API
answered in public sources. The captures are data, ``msgmodel/data/live_api_errors.json``,
taken from ``docs/api-rules.md``: for each, the request body, the error text as that page quotes
it (``quoted``, with ``N``/``M``/``<id>`` standing for the parts that change), what those parts
are for this request (``fill``), the public source, and ``kind`` ``"captured"``. The open
questions of that page (``kind`` ``"open"``) come with the request that would settle them and
no live answer: they are listed apart, with what ``validate`` says today (our reading).

``live_api_agreement()`` runs ``validate_request`` (``validate`` on a whole request body) on
every capture and returns an ``Agreement``: an HTML table in Jupyter, aligned plain text
elsewhere, the same on every run. ``Agreement.summary()`` is the short view, a verdict in three
lines: the count, what kind of evidence the captures are (a verbatim text, or a quoted one whose
ids and message numbers we filled in; a known request, or one reconstructed from the report), and
the open questions; its ``by_rule()`` lists each rule with what it forbids. No live API is called
here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from html import escape as _esc  # quotes too
from pathlib import Path
from typing import Any, Final

from msgmodel.core.protocol import hint_for, validate_request
from msgmodel.course.i18n import _

__all__ = [
    "Agreement",
    "AgreementSummary",
    "Capture",
    "OpenQuestion",
    "OpenQuestions",
    "live_api_agreement",
    "load_captures",
]

DATA: Final = Path(__file__).resolve().parent.parent / "data" / "live_api_errors.json"
_ACCEPTED: Final = "200 (accepted)"


@dataclass(frozen=True)
class Capture:
    """One public capture: the request, the live API's answer, and what ``validate`` says of it."""

    id: str
    rule: str
    confidence: str
    body: dict[str, Any]
    live_status: int
    quoted: str
    live_text: str
    source: str
    urls: tuple[str, ...]
    note: str
    validate_text: str
    filled: bool = False
    hint: str = ""

    @property
    def reconstructed(self) -> bool:
        """Whether the request was inferred from the report (confidence below A): a verbatim text, a guessed input."""
        return self.confidence != "A"

    @property
    def live_answer(self) -> str:
        """The live answer as one line: the error text, or ``200 (accepted)``."""
        return self.live_text if self.live_status == 400 else _ACCEPTED

    @property
    def agrees(self) -> bool:
        """Whether ``validate``'s first violation is the live text, byte for byte (none for a 200)."""
        return self.validate_text == self.live_answer


@dataclass(frozen=True)
class OpenQuestion:
    """An open question of ``docs/api-rules.md``: no live answer, only our reading."""

    id: str
    rule: str
    question: str
    body: dict[str, Any]
    validate_text: str


def _first_violation(body: dict[str, Any]) -> str:
    violations = validate_request(body)
    return str(violations[0]) if violations else _ACCEPTED


def _first_hint(body: dict[str, Any]) -> str:
    violations = validate_request(body)
    return hint_for(violations[0]) if violations else "accepted"


def _short_content(content: object) -> str:
    if isinstance(content, str):
        return "str"
    if isinstance(content, list):
        kinds = [str(b.get("type", "?")) if isinstance(b, dict) else type(b).__name__ for b in content]
        return "[" + ", ".join(kinds) + "]"
    return type(content).__name__


def request_summary(body: dict[str, Any]) -> str:
    """A request in one line: each message as ``role:[block kinds]``, then the options that matter.

    Reads the raw body (a capture may be a request no ``Message`` can hold, such as a text block
    whose text is a number), so it only names roles and ``type`` fields.
    """
    messages = body.get("messages", [])
    parts = []
    for m in messages if isinstance(messages, list) else []:
        role = str(m.get("role", "?")) if isinstance(m, dict) else "?"
        parts.append(f"{role[0] if role in ('user', 'assistant') else role}:{_short_content(m.get('content'))}")
    options = [f"model={body['model']}"] if "model" in body else []
    thinking = body.get("thinking")
    if isinstance(thinking, dict):
        options.append(f"thinking={thinking.get('type')}")
    if not body.get("tools"):
        options.append("no tools")
    return " ".join(parts) + (f"  ({', '.join(options)})" if options else "")


def load_captures(path: Path = DATA) -> tuple[list[Capture], list[OpenQuestion]]:
    """The captures and the open questions of the data file, each run through ``validate_request``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    captures = [
        Capture(
            id=c["id"],
            rule=c["rule"],
            confidence=c["confidence"],
            body=c["body"],
            live_status=c["live_status"],
            quoted=c["quoted"],
            live_text=c["live_text"],
            source=c["source"]["title"],
            urls=tuple(c["source"]["urls"]),
            note=c["note"],
            validate_text=_first_violation(c["body"]),
            filled=bool(c.get("fill")),
            hint=_first_hint(c["body"]),
        )
        for c in data["captures"]
    ]
    questions = [
        OpenQuestion(q["id"], q["rule"], q["question"], q["body"], _first_violation(q["body"])) for q in data["open"]
    ]
    return captures, questions


_CSS: Final = (
    "<style>.mm-live td,.mm-live th{text-align:left;vertical-align:top;padding:3px 6px;font-size:12px}"
    ".mm-live code{white-space:pre-wrap;word-break:break-word}.mm-live .ok{color:#1a7f37;font-weight:700}"
    ".mm-live .ko{color:#cf222e;font-weight:700}</style>"
)


def _source_html(title: str, urls: tuple[str, ...]) -> str:
    links = " ".join(f'<a href="{_esc(u)}" target="_blank">[{i + 1}]</a>' for i, u in enumerate(urls))
    return f"{_esc(title)} {links}".strip()


class OpenQuestions:
    """The open questions, apart from the captures: a question, a request, what ``validate`` says (ours)."""

    def __init__(self, questions: list[OpenQuestion]) -> None:
        self.questions = questions

    def __len__(self) -> int:
        return len(self.questions)

    def __repr__(self) -> str:
        lines = [_("Open questions: no live answer captured ({n}); validate gives our reading").format(n=len(self))]
        for q in self.questions:
            lines.append(f"  {q.id} ({q.rule}): {q.question}")
            lines.append("      " + _("request:  {summary}").format(summary=request_summary(q.body)))
            lines.append(f"      validate: {q.validate_text}  " + _("(our reading, not the live API's)"))
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = f"<tr><th>{_('open question')}</th><th>{_('request')}</th><th>{_('validate (our reading)')}</th></tr>"
        rows = "".join(
            f"<tr><td><b>{_esc(q.id)}</b> ({_esc(q.rule)}): {_esc(q.question)}</td>"
            f"<td><code>{_esc(request_summary(q.body))}</code></td><td><code>{_esc(q.validate_text)}</code></td></tr>"
            for q in self.questions
        )
        return (
            f'{_CSS}<table class="mm-live mm-live-open"><caption style="text-align:left">'
            f"{_('<b>Open questions</b>: no live answer captured')}</caption>{head}{rows}</table>"
        )


class Agreement:
    """The captures, each with the live API's text and ``validate``'s, and whether they agree."""

    def __init__(self, captures: list[Capture], open_questions: list[OpenQuestion]) -> None:
        self.captures = captures
        self.open_questions = OpenQuestions(open_questions)

    @property
    def agreeing(self) -> int:
        """How many captures ``validate`` reproduces byte for byte."""
        return sum(c.agrees for c in self.captures)

    @property
    def all_agree(self) -> bool:
        """Whether ``validate`` reproduces every capture."""
        return self.agreeing == len(self.captures)

    def _title(self) -> str:
        n = len(self.captures)
        filled = sum(c.filled for c in self.captures)
        rebuilt = sum(c.reconstructed for c in self.captures)
        return _(
            "validate vs the live API: {agreeing} of {n} public captures agree byte for byte: {verbatim} texts "
            "verbatim, {filled} with placeholders we filled in; {rebuilt} requests reconstructed"
        ).format(agreeing=self.agreeing, n=n, verbatim=n - filled, filled=filled, rebuilt=rebuilt)

    def summary(self) -> AgreementSummary:
        """The short view: the verdict in three lines; ``.by_rule()`` lists what each rule forbids."""
        return AgreementSummary(self)

    def __repr__(self) -> str:
        lines = [self._title()]
        for c in self.captures:
            mark = "✓" if c.agrees else "✗"
            lines.append(f"{mark} {c.rule}: {request_summary(c.body)}")
            captured = _("captured (ids filled in)") if c.filled else _("captured, verbatim")
            lines.append(f"      {captured}: {c.live_answer}")
            lines.append(f"      validate: {_('same') if c.agrees else c.validate_text}")
            lines.append("      " + _("source:   {source}").format(source=c.source))
        return "\n".join(lines) + "\n\n" + repr(self.open_questions)

    def _repr_html_(self) -> str:
        head = (
            f"<tr><th>{_('rule')}</th><th>{_('request')}</th><th>{_('live API (captured)')}</th><th>validate</th>"
            f"<th>{_('agree')}</th><th>{_('public source')}</th></tr>"
        )
        rows = "".join(
            f"<tr><td>{_esc(c.rule)}</td><td><code>{_esc(request_summary(c.body))}</code></td>"
            f"<td><code>{_esc(c.live_answer)}</code>{_(' (ids filled in)') if c.filled else ''}</td>"
            f"<td><code>{_esc(_('same') if c.agrees else c.validate_text)}</code></td>"
            f'<td class="{"ok" if c.agrees else "ko"}">{"✓" if c.agrees else "✗"}</td>'
            f"<td>{_source_html(c.source, c.urls)}</td></tr>"
            for c in self.captures
        )
        table = (
            f'{_CSS}<table class="mm-live"><caption style="text-align:left"><b>{_esc(self._title())}</b></caption>'
            f"{head}{rows}</table>"
        )
        return table + self.open_questions._repr_html_()


class AgreementSummary:
    """``Agreement.summary()``: the verdict in three lines (the count, the kind of evidence, the open questions)."""

    def __init__(self, agreement: Agreement) -> None:
        self.agreement = agreement

    def __repr__(self) -> str:
        a = self.agreement
        caps = a.captures
        n, filled = len(caps), sum(c.filled for c in caps)
        refused = sum(c.live_status == 400 for c in caps)
        return "\n".join(
            [
                _(
                    "{n} public captures of the live API: {agreeing} agree with validate byte for byte "
                    "({verbatim} verbatim, {filled} with placeholders filled)"
                ).format(n=n, agreeing=a.agreeing, verbatim=n - filled, filled=filled),
                "  "
                + _(
                    "{refused} refusals under {rules} rules and {accepted} acceptance; {rebuilt} requests rebuilt "
                    "from a report, not recorded"
                ).format(
                    refused=refused,
                    rules=len({c.rule for c in caps if c.live_status == 400}),
                    accepted=n - refused,
                    rebuilt=sum(c.reconstructed for c in caps),
                ),
                "  "
                + _("not captured: {n} open questions, answered by our reading (listed apart)").format(
                    n=len(a.open_questions)
                ),
            ]
        )

    def by_rule(self) -> str:
        """One line per rule: ✓ or ✗, the live status, the rule id (× captures) and what the rule forbids."""
        a = self.agreement
        caps = a.captures
        rows: dict[tuple[int, str], list[Capture]] = {}
        for c in caps:
            rows.setdefault((c.live_status, c.rule), []).append(c)
        width = max(len(c.rule) for c in caps) + 4
        lines = [
            _(
                "placeholders are the ids and message numbers a report left out; a reconstructed request is rebuilt "
                "from the report, not recorded"
            )
        ]
        for (status, rule), group in rows.items():
            c = group[0]
            what = (
                c.hint.split(";")[0] if status == 400 else "accepted: " + c.note.split(": accepted ")[-1].strip("().")
            )
            name = f"{rule} ×{len(group)}" if len(group) > 1 else rule
            lines.append(f"{'✓' if all(g.agrees for g in group) else '✗'} {status} {name:<{width}} {what}")
        return "\n".join(lines)


def live_api_agreement() -> Agreement:
    """Run ``validate`` on every public capture of the live API and show where it agrees.

    One row per capture of ``msgmodel/data/live_api_errors.json``: the rule, the request in one
    line, the text the live API returned (verbatim, as captured), what ``validate`` says, ✓ or ✗,
    the public source. The open questions are apart, in ``.open_questions``.
    """
    captures, questions = load_captures()
    return Agreement(captures, questions)
