"""Interactive views for the notebook series (ipywidgets 8), each with a static fallback.

This module owns the series' widgets. It is the only module that imports ``ipywidgets``,
and ``import msgmodel`` never imports it.

The widgets
    ``ConversationView(messages)``
        Messages as cards by role, blocks as labelled chips, tool pairs linked by a shared
        coloured ``#n`` badge, and every violation ``msgmodel.core.protocol.validate`` finds shown
        in red on the block it names (``Violation.at``), worded as the public captures show the
        live API's texts. A checkbox narrows the view to the messages with problems.
    ``CompactionExplorer(messages)``
        An ``IntSlider`` for ``keep_recent``. Beside each other: the slicing cut of step 29
        (``[summary, *messages[-k:]]``) and the clean cut of ``msgmodel.core.compact.plan_compaction``,
        each with the validator's live verdict (``200 OK``, or ``400`` and the API's text).
    ``TranscriptCompare(messages, before=...)``
        What a summarizer reads: the transcript made by ``before`` (a legacy renderer the
        notebook passes in, e.g. ``msgmodel.course.legacy.summary30.transcript``; it receives
        ``to_api(messages)``) beside ``transcript_of(messages)``, with a search box that
        counts what each side still mentions.
    ``Quiz(questions)``
        Multiple-choice self-check: ``RadioButtons`` and a Check button per ``Question``.
    ``InterviewDrill(items)``
        Interview practice: per question a ``Textarea`` to write an answer first, a button that
        shows the model answer and a checklist of its key points, and the score (points ticked).

How each one displays
    One mimebundle holding three views of the same state: the live widget
    (``application/vnd.jupyter.widget-view+json``: JupyterLab, Notebook 7, VS Code); ``text/html``,
    a static rendering of the current state (``static_html()``), shown where no widget runs
    (nbconvert HTML without a kernel, GitHub, an untrusted notebook); and ``text/plain``, a
    deterministic summary (``repr``) that nbval compares. No model id, address or time appears
    in the HTML or the text, so a committed output compares equal on every run.

    Callbacks only assign ``HTML.value`` (never ``with out:`` or ``clear_output``), so a
    notebook can drive a widget under nbval: set ``.value`` or call ``.click()`` / ``choose``
    and print the resulting state.

The logic is plain functions, tested without a frontend
    ``locate``, ``violation_problems``, ``api_verdict``, ``slicing_cut``, ``clean_cut``,
    ``count_hits`` and ``check_choice``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html import escape as _esc  # quotes too
from typing import Any, Final, Protocol, cast

import ipywidgets as w

from msgmodel.core.compact import plan_compaction, summary_message
from msgmodel.core.message import Message, message_to_text, to_api, transcript_of
from msgmodel.core.protocol import Violation, validate
from msgmodel.course.display import conversation_html, tool_pairs
from msgmodel.course.i18n import N_, _, join, ngettext

__all__ = [
    "ApiVerdict",
    "CompactionExplorer",
    "ConversationView",
    "Cut",
    "DrillCard",
    "Feedback",
    "InterviewDrill",
    "Question",
    "Quiz",
    "TranscriptCompare",
    "api_verdict",
    "check_choice",
    "clean_cut",
    "count_hits",
    "locate",
    "slicing_cut",
    "violation_problems",
]

LegacyRenderer = Callable[[list[dict[str, Any]]], str]
"""A renderer of the dict era: the messages in their wire shape (``to_api``) to a transcript."""

Problems = dict[int, dict[int | None, list[str]]]
"""Message index -> block index (``None``: the whole message) -> error texts."""

_LINE: Final = 90

_STYLE: Final = (
    "<style>"
    ".mmw{font-family:system-ui,sans-serif;font-size:13px;line-height:1.35}"
    ".mmw-verdict{border-radius:5px;padding:5px 9px;margin:4px 0;font-weight:600}"
    ".mmw-ok{background:#e3f5e3;border:1px solid #2e8b2e;color:#1d5e1d}"
    ".mmw-fail{background:#fde4e4;border:1px solid #c22;color:#8b0000}"
    ".mmw-verdict code{font-weight:400;white-space:pre-wrap;word-break:break-word;color:#600;background:none}"
    ".mmw-cols{display:flex;gap:12px;align-items:flex-start}"
    ".mmw-col{flex:1 1 0;min-width:0}"
    ".mmw-col h4{margin:4px 0;font-size:14px}"
    ".mmw-note{color:#555;margin:2px 0}"
    ".mmw-scroll{max-height:460px;overflow:auto}"
    ".mmw-table{border-collapse:collapse;margin:6px 0;font-size:12px}"
    ".mmw-table td,.mmw-table th{border:1px solid #ccc;padding:1px 6px;text-align:center}"
    ".mmw-table .mmw-now{outline:2px solid #333}"
    ".mmw-y{background:#e3f5e3;color:#1d5e1d}.mmw-n{background:#fde4e4;color:#8b0000}"
    ".mmw-pre{white-space:pre-wrap;word-break:break-word;font-family:monospace;font-size:12px;"
    "background:#fafafa;border:1px solid #ddd;border-radius:4px;padding:6px;margin:0}"
    ".mmw pre.mmw-pre{word-break:normal;overflow-wrap:anywhere;font-family:monospace}.mmw-pre mark{background:#ffe066}"
    ".mmw-q{margin:8px 0 2px 0;font-weight:600;line-height:1.35}.mmw-opt{margin:1px 0 1px 1.2em}"
    ".mmw-right{color:#1d5e1d;font-weight:600}.mmw-wrong{color:#8b0000;font-weight:600}"
    "</style>"
)


def _one_line(s: str, limit: int = _LINE) -> str:
    s = " ".join(s.split())
    return s if len(s) <= limit else s[:limit] + "…"


# ---------------------------------------------------------------------------------------
# Violations on blocks, and the API's verdict
# ---------------------------------------------------------------------------------------

_AT: Final = re.compile(r"messages\.(\d+)(?:\.content\.(\d+))?")


def locate(at: str) -> tuple[int | None, int | None]:
    """``(message, block)`` of a ``Violation.at`` such as ``messages.3.content.1.tool_use.id``.

    ``(3, None)`` for a message-level location, ``(None, None)`` for the whole request.
    """
    m = _AT.match(at)
    if m is None:
        return None, None
    return int(m.group(1)), int(m.group(2)) if m.group(2) is not None else None


def violation_problems(violations: Iterable[Violation], n_messages: int) -> tuple[Problems, list[Violation]]:
    """Place each violation on its block (the ``problems`` of ``conversation_html``).

    Returns the placement (texts are ``str(v)``, the API's wording) and the violations that
    name no message of the ``n_messages`` (request-level ones), in order.
    """
    problems: Problems = {}
    unplaced: list[Violation] = []
    for v in violations:
        msg, block = locate(v.at or v.path)
        if msg is None or msg >= n_messages:
            unplaced.append(v)
            continue
        problems.setdefault(msg, {}).setdefault(block, []).append(str(v))
    return problems, unplaced


@dataclass(frozen=True)
class ApiVerdict:
    """What the live API would answer: ``200 OK``, or ``400`` with the first violation's text."""

    violations: tuple[Violation, ...]

    @property
    def ok(self) -> bool:
        return not self.violations

    @property
    def status(self) -> str:
        return "200 OK" if self.ok else "400 invalid_request_error"

    @property
    def text(self) -> str:
        """The API's error text, verbatim (``""`` when accepted)."""
        return str(self.violations[0]) if self.violations else ""

    def __str__(self) -> str:
        return self.status if self.ok else f"{self.status}: {self.text}"

    def __repr__(self) -> str:
        return str(self)

    def html(self) -> str:
        """A green or red banner; the error text verbatim in ``<code>``."""
        if self.ok:
            return f'<div class="mmw-verdict mmw-ok">✓ 200 OK: {_("the API accepts it")}</div>'
        more = len(self.violations) - 1
        extra = " " + ngettext("(+{n} more violation)", "(+{n} more violations)", more).format(n=more) if more else ""
        return (
            f'<div class="mmw-verdict mmw-fail">✗ 400 invalid_request_error{extra}<br>'
            f"<code>{_esc(self.text)}</code></div>"
        )


def api_verdict(
    messages: Sequence[Message], *, model: str | None = None, thinking: str | None = None, as_history: bool = True
) -> ApiVerdict:
    """The validator's verdict on ``messages`` (see ``msgmodel.core.protocol.validate``).

    ``as_history=True`` (the default) judges the messages as a history to continue from: a
    final assistant message ends its turn instead of counting as a prefill.
    """
    return ApiVerdict(tuple(validate(messages, model=model, thinking=thinking, as_history=as_history)))


# ---------------------------------------------------------------------------------------
# ConversationView
# ---------------------------------------------------------------------------------------


class ConversationView:
    """Messages as cards, tool pairs linked, every violation on its block in the API's words.

    ``view.widget`` is the live widget; ``view.only_problems`` (a ``Checkbox``) narrows it
    to the messages with problems; ``view.verdict`` and ``view.problems`` hold the result.
    """

    def __init__(
        self,
        messages: Iterable[Message],
        *,
        model: str | None = None,
        thinking: str | None = None,
        as_history: bool = True,
        title: str = "",
    ) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        self.title = title
        self.verdict = api_verdict(self.messages, model=model, thinking=thinking, as_history=as_history)
        self.problems, self.unplaced = violation_problems(self.verdict.violations, len(self.messages))
        self.only_problems = w.Checkbox(value=False, description=_("only messages with problems"), indent=False)
        self.body = w.HTML(value=self._html(False), layout=w.Layout(width="auto"))
        self.only_problems.observe(self._on_filter, names="value")
        self.widget = w.VBox([self.only_problems, self.body], layout=w.Layout(width="100%"))
        self.widget.add_class("mm-conversation-view")

    def _on_filter(self, change: Mapping[str, Any]) -> None:
        self.body.value = self._html(bool(change["new"]))

    def _html(self, only_problems: bool) -> str:
        n = len(self.messages)
        head = f"<h4>{_esc(_(self.title))}</h4>" if self.title else ""
        pairs = len(tool_pairs(self.messages))
        counts = ngettext("{n} message", "{n} messages", n).format(n=n) + _(", ")
        counts += ngettext("{n} tool id", "{n} tool ids", pairs).format(n=pairs)
        note = f'<div class="mmw-note">{counts}'
        note += _(" (a tool_use and its result share a #n badge)") + "</div>" if pairs else "</div>"
        unplaced = "".join(
            f'<div class="mmw-note">{_("request:")} <code>{_esc(str(v))}</code></div>' for v in self.unplaced
        )
        if only_problems and not self.problems:
            cards = f'<div class="mmw-note">{_("No message has a problem.")}</div>'
        else:
            only = set(self.problems) if only_problems else None
            cards = conversation_html(self.messages, problems=self.problems, link_tools=True, only=only)
        return (
            f'{_STYLE}<div class="mmw mm-conversation">{head}{self.verdict.html()}{note}{unplaced}'
            f'<div class="mmw-scroll">{cards}</div></div>'
        )

    def static_html(self) -> str:
        """The view as static HTML (all messages), for pages where no widget runs."""
        return self._html(False)

    def __repr__(self) -> str:
        n = len(self.messages)
        counts = ngettext("{n} message", "{n} messages", n).format(n=n)
        lines = [f"ConversationView: {counts}" + _(", {n} tool ids").format(n=len(tool_pairs(self.messages)))]
        if self.verdict.ok:
            lines.append("  200 OK: " + _("the API accepts it"))
        else:
            count = len(self.verdict.violations)
            lines.append(
                "  400 invalid_request_error: " + ngettext("{n} violation", "{n} violations", count).format(n=count)
            )
        for v in self.verdict.violations:
            lines.append(f"  ✗ {v}")
        for i, m in enumerate(self.messages):
            mark = "✗" if i in self.problems else " "
            lines.append(f"  {mark}{i:>3} {m.role:<9} {_one_line(message_to_text(m))}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), self.static_html())


# ---------------------------------------------------------------------------------------
# CompactionExplorer
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Cut:
    """One compaction of a history: what is sent, from which input index on, and the verdict."""

    method: str
    keep_recent: int
    kept_from: int
    """Input index of the first kept message (``0``: nothing is summarized)."""
    messages: tuple[Message, ...]
    verdict: ApiVerdict

    @property
    def summarized(self) -> bool:
        return self.kept_from > 0

    def describe(self) -> str:
        """One line: what is summarized, what is kept, how many messages are sent."""
        total = self.kept_from + (len(self.messages) - (1 if self.summarized else 0))
        if not self.summarized:
            return _("nothing summarized; all {total} messages sent").format(total=total)
        kept = total - self.kept_from
        span = f"{self.kept_from}–{total - 1}" if kept > 1 else f"{self.kept_from}" if kept == 1 else _("none")
        return _("summary of messages 0–{last} + messages {span} kept ({sent} sent)").format(
            last=self.kept_from - 1, span=span, sent=len(self.messages)
        )

    def __repr__(self) -> str:
        return f"{self.method} (keep_recent={self.keep_recent}): {self.describe()} → {self.verdict}"


def _summary_for(kept_from: int) -> Message:
    return summary_message(_("(summary of messages 0–{last})").format(last=kept_from - 1))


def slicing_cut(
    messages: Sequence[Message],
    keep_recent: int,
    *,
    model: str | None = None,
    thinking: str | None = None,
    as_history: bool = True,
) -> Cut:
    """Step 29's compaction: ``[summary, *messages[-keep_recent:]]``, cut wherever the count lands.

    Nothing is summarized when the history is not longer than ``keep_recent``. Raises
    ``ValueError`` for ``keep_recent < 1`` (``messages[-0:]`` is the whole list, not none).
    """
    if keep_recent < 1:
        raise ValueError(f"the slicing cut needs keep_recent >= 1 (messages[-0:] is the whole list), got {keep_recent}")
    if len(messages) <= keep_recent:
        kept_from, sent = 0, tuple(messages)
    else:
        kept_from = len(messages) - keep_recent
        sent = (_summary_for(kept_from), *messages[-keep_recent:])
    verdict = api_verdict(sent, model=model, thinking=thinking, as_history=as_history)
    return Cut(f"slicing messages[-{keep_recent}:]", keep_recent, kept_from, sent, verdict)


def clean_cut(
    messages: Sequence[Message],
    keep_recent: int,
    *,
    model: str | None = None,
    thinking: str | None = None,
    as_history: bool = True,
) -> Cut:
    """The fixed compaction: ``plan_compaction`` moves the cut to a clean user start."""
    plan = plan_compaction(messages, keep_recent=keep_recent)
    sent = (_summary_for(plan.kept_from), *messages[plan.kept_from :]) if plan.summarizes else tuple(messages)
    verdict = api_verdict(sent, model=model, thinking=thinking, as_history=as_history)
    return Cut(f"clean cut plan_compaction(keep_recent={keep_recent})", keep_recent, plan.kept_from, sent, verdict)


def _cut_html(cut: Cut, title: str) -> str:
    problems, unplaced = violation_problems(cut.verdict.violations, len(cut.messages))
    rest = "".join(f'<div class="mmw-note"><code>{_esc(str(v))}</code></div>' for v in unplaced)
    cards = conversation_html(cut.messages, problems=problems, link_tools=True)
    return (
        f'<div class="mmw-col"><h4>{title}</h4>{cut.verdict.html()}'
        f'<div class="mmw-note">{_esc(cut.describe())}</div>{rest}<div class="mmw-scroll">{cards}</div></div>'
    )


class CompactionExplorer:
    """Move ``keep_recent`` and watch the slicing cut break while the clean cut stays valid.

    ``explorer.slider`` is the ``IntSlider`` (1 .. number of messages); ``explorer.slicing``
    and ``explorer.clean`` are the current ``Cut`` s; ``explorer.table`` the verdict for every
    ``keep_recent``. The verdicts use ``api_verdict`` with the given ``model``/``thinking``.
    """

    def __init__(
        self,
        messages: Iterable[Message],
        *,
        keep_recent: int | None = None,
        model: str | None = None,
        thinking: str | None = None,
        as_history: bool = True,
    ) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        if len(self.messages) < 2:
            raise ValueError(f"CompactionExplorer needs a history of at least 2 messages, got {len(self.messages)}")
        self._opts: dict[str, Any] = {"model": model, "thinking": thinking, "as_history": as_history}
        n = len(self.messages)
        self.table: tuple[tuple[Cut, Cut], ...] = tuple(
            (slicing_cut(self.messages, k, **self._opts), clean_cut(self.messages, k, **self._opts))
            for k in range(1, n + 1)
        )
        start = keep_recent if keep_recent is not None else self._first_broken() or max(1, n // 2)
        if not 1 <= start <= n:
            raise ValueError(f"keep_recent must be between 1 and {n}, got {start}")
        self.slider = w.IntSlider(
            value=start, min=1, max=n, step=1, description="keep_recent", continuous_update=True, readout=True
        )
        self.slider.style.description_width = "initial"
        self.body = w.HTML(value=self._html(start), layout=w.Layout(width="auto"))
        self.slider.observe(self._on_slide, names="value")
        self.widget = w.VBox([self.slider, self.body], layout=w.Layout(width="100%"))
        self.widget.add_class("mm-compaction-explorer")

    def _first_broken(self) -> int | None:
        """The largest ``keep_recent`` whose slicing cut the API rejects (a telling start)."""
        for slicing, _clean in reversed(self.table):
            if not slicing.verdict.ok:
                return slicing.keep_recent
        return None

    @property
    def keep_recent(self) -> int:
        return int(self.slider.value)

    @property
    def slicing(self) -> Cut:
        return self.table[self.keep_recent - 1][0]

    @property
    def clean(self) -> Cut:
        return self.table[self.keep_recent - 1][1]

    def _on_slide(self, change: Mapping[str, Any]) -> None:
        self.body.value = self._html(int(change["new"]))

    def _strip(self, now: int) -> str:
        head = "".join(
            f"<th{' class=mmw-now' if s.keep_recent == now else ''}>{s.keep_recent}</th>" for s, _ in self.table
        )

        def row(label: str, cuts: Iterable[Cut]) -> str:
            cells = "".join(
                f'<td class="mmw-{"y" if c.verdict.ok else "n"}{" mmw-now" if c.keep_recent == now else ""}"'
                f' title="{_esc(str(c.verdict))}">{"✓" if c.verdict.ok else "✗"}</td>'
                for c in cuts
            )
            return f"<tr><th>{_(label)}</th>{cells}</tr>"

        return (
            f'<table class="mmw-table"><tr><th>keep_recent</th>{head}</tr>'
            f"{row(N_('slicing'), (s for s, _c in self.table))}"
            f"{row(N_('clean cut'), (c for _s, c in self.table))}</table>"
        )

    def _html(self, k: int) -> str:
        slicing, clean = self.table[k - 1]
        return (
            f'{_STYLE}<div class="mmw mm-compaction">'
            '<div class="mmw-note">'
            + _("keep_recent = {k} of {n} messages. ").format(k=k, n=len(self.messages))
            + _("✓ = the API accepts the compacted history, ✗ = it answers 400:")
            + "</div>"
            f"{self._strip(k)}"
            '<div class="mmw-cols">'
            f"{_cut_html(slicing, _('Slicing: <code>messages[-{k}:]</code> (step 29)').format(k=k))}"
            f"{_cut_html(clean, _('Clean cut: <code>plan_compaction(keep_recent={k})</code>').format(k=k))}"
            "</div></div>"
        )

    def static_html(self) -> str:
        """The explorer at its current ``keep_recent``, with the verdict strip for every value."""
        return self._html(self.keep_recent)

    def __repr__(self) -> str:
        k = self.keep_recent
        marks = "".join("✓" if s.verdict.ok else "✗" for s, _ in self.table)
        clean_marks = "".join("✓" if c.verdict.ok else "✗" for _, c in self.table)
        return "\n".join(
            [
                "CompactionExplorer: " + _("{n} messages, keep_recent={k}").format(n=len(self.messages), k=k),
                "  " + _("slicing:  ") + f" {self.slicing.describe()}",
                f"             → {self.slicing.verdict}",
                "  " + _("clean cut:") + f" {self.clean.describe()}",
                f"             → {self.clean.verdict}",
                f"  keep_recent 1..{len(self.messages)}: "
                + _("slicing {marks}  clean cut {clean_marks}").format(marks=marks, clean_marks=clean_marks),
            ]
        )

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), self.static_html())


# ---------------------------------------------------------------------------------------
# TranscriptCompare
# ---------------------------------------------------------------------------------------


def count_hits(text: str, query: str) -> int:
    """How many times ``query`` occurs in ``text`` (case-insensitive; ``0`` for an empty query)."""
    return text.lower().count(query.lower()) if query else 0


def _marked(text: str, query: str) -> str:
    if not query:
        return _esc(text)
    parts = re.split(f"({re.escape(query)})", text, flags=re.IGNORECASE)
    return "".join(f"<mark>{_esc(p)}</mark>" if i % 2 else _esc(p) for i, p in enumerate(parts))


class TranscriptCompare:
    """The summarizer's input before and after: a legacy renderer beside ``transcript_of``.

    ``before`` renders the messages in their wire shape (it gets ``to_api(messages)``), so
    the notebook passes the exhibit in: ``TranscriptCompare(msgs, before=summary30.transcript)``.
    ``terms`` are tabulated (does each side still mention them?); ``compare.query`` is the
    search box (a ``Text``), initially ``query``.
    """

    def __init__(
        self,
        messages: Iterable[Message],
        *,
        before: LegacyRenderer,
        terms: Sequence[str] = (),
        query: str = "",
        before_label: str = N_("before: the legacy transcript"),
        after_label: str = N_("after: transcript_of(messages)"),
    ) -> None:
        self.messages: tuple[Message, ...] = tuple(messages)
        self.before_text: str = before(cast(list[dict[str, Any]], to_api(self.messages)))
        if not isinstance(self.before_text, str):
            raise TypeError(f"before must return a string, got {type(self.before_text).__name__}")
        self.after_text = transcript_of(self.messages)
        self.terms = tuple(terms)
        self.labels = (_(before_label), _(after_label))
        self.query = w.Text(
            value=query,
            placeholder=_("search both transcripts (a file name, a command, 'failed')"),
            description=_("find"),
            continuous_update=True,
            layout=w.Layout(width="60%"),
        )
        self.body = w.HTML(value=self._html(query), layout=w.Layout(width="auto"))
        self.query.observe(self._on_query, names="value")
        self.widget = w.VBox([self.query, self.body], layout=w.Layout(width="100%"))
        self.widget.add_class("mm-transcript-compare")

    def hits(self, query: str) -> tuple[int, int]:
        """``(before, after)``: how often each transcript mentions ``query``."""
        return count_hits(self.before_text, query), count_hits(self.after_text, query)

    def _on_query(self, change: Mapping[str, Any]) -> None:
        self.body.value = self._html(str(change["new"]))

    def _html(self, query: str) -> str:
        q = query.strip()
        table = ""
        if self.terms:
            rows = "".join(
                f"<tr><td><code>{_esc(t)}</code></td>"
                + "".join(f'<td class="mmw-{"y" if n else "n"}">{n}</td>' for n in self.hits(t))
                + "</tr>"
                for t in self.terms
            )
            head = f"<tr><th>{_('mentions of')}</th><th>{_('before')}</th><th>{_('after')}</th></tr>"
            table = f'<table class="mmw-table">{head}{rows}</table>'
        if q:
            b, a = self.hits(q)
            counted = _("before {b} · after {a}").format(b=b, a=a)
            found = f'<div class="mmw-note mm-hits">“{_esc(q)}”: {counted}</div>'
        else:
            found = f'<div class="mmw-note mm-hits">{_("Type a word to count it in both transcripts.")}</div>'
        cols = "".join(
            f'<div class="mmw-col"><h4>{_esc(label)}</h4>'
            f'<div class="mmw-note">{_("{n} characters").format(n=len(text))}</div>'
            f'<div class="mmw-scroll"><pre class="mmw-pre">{_marked(text, q)}</pre></div></div>'
            for label, text in zip(self.labels, (self.before_text, self.after_text), strict=True)
        )
        return f'{_STYLE}<div class="mmw mm-transcripts">{table}{found}<div class="mmw-cols">{cols}</div></div>'

    def static_html(self) -> str:
        return self._html(str(self.query.value))

    def __repr__(self) -> str:
        lines = ["TranscriptCompare: " + _("{n} messages").format(n=len(self.messages))]
        for t in self.terms:
            b, a = self.hits(t)
            lines.append("  " + _("mentions of {term}: before {b}, after {a}").format(term=repr(t), b=b, a=a))
        for label, text in zip(self.labels, (self.before_text, self.after_text), strict=True):
            lines.append(f"--- {label} (" + _("{n} characters").format(n=len(text)) + ")")
            lines.extend(f"  {line}".rstrip() for line in text.splitlines())
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), self.static_html())


# ---------------------------------------------------------------------------------------
# Quiz
# ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Question:
    """One multiple-choice question. ``answer`` is the text of the right option.

    ``explain`` is shown once the answer is right; ``hints`` maps a wrong option to a hint
    shown when it is picked.
    """

    prompt: str
    options: Sequence[str]
    answer: str
    explain: str = ""
    hints: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", tuple(self.options))
        if len(self.options) < 2:
            raise ValueError(f"question {self.prompt!r}: needs at least 2 options, got {len(self.options)}")
        if len(set(self.options)) != len(self.options):
            raise ValueError(f"question {self.prompt!r}: options must be distinct")
        if self.answer not in self.options:
            raise ValueError(f"question {self.prompt!r}: the answer {self.answer!r} is not one of its options")
        unknown = [k for k in self.hints if k not in self.options]
        if unknown:
            raise ValueError(f"question {self.prompt!r}: hints for options it does not have: {unknown}")


@dataclass(frozen=True)
class Feedback:
    """The verdict on one choice: ``correct`` and the line shown to the learner."""

    correct: bool
    text: str

    def __repr__(self) -> str:
        return self.text


def _letter(j: int) -> str:
    return chr(ord("a") + j) if j < 26 else str(j + 1)


def check_choice(question: Question, choice: str | None) -> Feedback:
    """Judge ``choice`` (an option's text, or ``None`` when nothing is picked)."""
    if choice is None:
        return Feedback(False, _("Pick an answer first."))
    if choice not in question.options:
        return Feedback(False, _("{choice} is not one of the options.").format(choice=repr(choice)))
    if choice == question.answer:
        return Feedback(True, join(_("✓ Correct."), _(question.explain)))
    hint = question.hints.get(choice, "")
    return Feedback(False, join(_("✗ Not quite."), _(hint) if hint else _("Think again and try another option.")))


class Quiz:
    """A self-check: per question ``RadioButtons`` and a Check button, feedback beside it.

    ``quiz.choose(i, option)`` picks an option of question ``i`` (0-based; the option's text or its
    letter) and checks it, in code (deterministic, for nbval); ``quiz.radios``, ``quiz.buttons`` and
    ``quiz.feedback`` are the per-question widgets. ``Quiz.USAGE`` is the instruction a notebook can
    print: it names no option, so it gives no answer away.
    """

    USAGE: Final = N_(
        "Pick an answer and press Check; a wrong pick gets a hint, not the answer. "
        "In code: quiz.choose(i, letter) picks option `letter` of question i + 1 and checks it."
    )

    def __init__(self, questions: Iterable[Question], *, title: str = N_("Self-check")) -> None:
        self.questions: tuple[Question, ...] = tuple(questions)
        if not self.questions:
            raise ValueError("a Quiz needs at least one question")
        self.title = title
        self.results: list[Feedback | None] = [None] * len(self.questions)
        self.radios: list[Any] = []
        self.buttons: list[Any] = []
        self.feedback: list[Any] = []
        rows: list[Any] = [w.HTML(f'{_STYLE}<div class="mmw"><b>{_esc(_(title))}</b></div>')]
        for i, q in enumerate(self.questions):
            labels = [(_(o), o) for o in q.options]  # shown in the chapter's language, valued in English
            radio = w.RadioButtons(options=labels, index=None, layout=w.Layout(width="max-content"))
            button = w.Button(description=_("Check"), button_style="", layout=w.Layout(width="90px"))
            fb = w.HTML(value="")
            button.on_click(self._checker(i))
            self.radios.append(radio)
            self.buttons.append(button)
            self.feedback.append(fb)
            rows += [
                w.HTML(f'<div class="mmw-q">{i + 1}. {_esc(_(q.prompt))}</div>'),
                radio,
                w.HBox([button, fb]),
            ]
        self.score = w.HTML(value=self._score_html())
        self.widget = w.VBox([*rows, self.score], layout=w.Layout(width="100%"))
        self.widget.add_class("mm-quiz")

    def _checker(self, i: int) -> Callable[[Any], None]:
        def on_click(_button: Any) -> None:
            self.check(i)

        return on_click

    def check(self, i: int) -> Feedback:
        """Check question ``i`` (0-based) against what its radio buttons hold now."""
        value = self.radios[i].value
        fb = check_choice(self.questions[i], None if value is None else str(value))
        self.results[i] = fb
        css = "mmw-right" if fb.correct else "mmw-wrong"
        self.feedback[i].value = f'<span class="mmw {css}">{_esc(fb.text)}</span>'
        self.score.value = self._score_html()
        return fb

    def choose(self, i: int, option: str) -> Feedback:
        """Pick ``option`` (its text, or its letter ``a``, ``b``, ...) for question ``i`` and press Check."""
        options = list(self.questions[i].options)
        letters = [_letter(j) for j in range(len(options))]
        if option not in options and option.lower() in letters:
            option = options[letters.index(option.lower())]
        if option not in options:
            raise ValueError(f"question {i}: {option!r} is not one of {options} (or a letter {', '.join(letters)})")
        self.radios[i].value = option
        self.buttons[i].click()
        fb = self.results[i]
        assert fb is not None
        return fb

    def _score(self) -> tuple[int, int]:
        checked = [r for r in self.results if r is not None]
        return sum(r.correct for r in checked), len(checked)

    def _score_text(self) -> str:
        right, checked = self._score()
        if not checked:
            return _("pick an answer and press Check")
        return _("{right} of {checked} checked right").format(right=right, checked=checked)

    def _score_html(self) -> str:
        return f'<div class="mmw mmw-note mm-score">{_esc(self._score_text())}</div>'

    def static_html(self) -> str:
        """The questions with their options; each answer folded in a ``<details>``."""
        parts = [f'{_STYLE}<div class="mmw mm-quiz-static"><b>{_esc(_(self.title))}</b>']
        for i, q in enumerate(self.questions):
            opts = "".join(f'<div class="mmw-opt">{_letter(j)}) {_esc(_(o))}</div>' for j, o in enumerate(q.options))
            answer = f"<b>{_esc(_(q.answer))}</b>" + (f" — {_esc(_(q.explain))}" if q.explain else "")
            parts.append(
                f'<div class="mmw-q">{i + 1}. {_esc(_(q.prompt))}</div>{opts}'
                f"<details><summary>{_('Show the answer')}</summary>{answer}</details>"
            )
        parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        n = len(self.questions)
        questions = ngettext("{n} question", "{n} questions", n).format(n=n)
        lines = [f"Quiz: {_(self.title)} ({questions}; {self._score_text()})"]
        for i, q in enumerate(self.questions):
            lines.append(f"  {i + 1}. {_(q.prompt)}")
            lines.extend(f"     {_letter(j)}) {_(o)}" for j, o in enumerate(q.options))
            if self.results[i] is not None:
                lines.append(f"     → {_(str(self.radios[i].value))}: {self.results[i]!r}")
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), self.static_html())


# ---------------------------------------------------------------------------------------
# InterviewDrill
# ---------------------------------------------------------------------------------------


class DrillCard(Protocol):
    """What ``InterviewDrill`` shows of one question (``msgmodel.course.exercises.ch06.DrillItem`` is one)."""

    @property
    def question(self) -> str: ...

    @property
    def points(self) -> tuple[str, ...]: ...


def _words(text: str) -> int:
    return len(text.split())


_CIRCLED = "①②③④⑤⑥⑦⑧⑨⑩"


def _shown_in(item: DrillCard) -> str:
    """Where the points of ``item`` that no core cell shows are shown (``DrillItem.shown_in``), or ""."""
    where = getattr(item, "shown_in", "")
    return _("(shown in {where})").format(where=_(where)) if where else ""


def _answer_shown(item: DrillCard) -> str:
    """The model answer of ``item``, followed by where its unshown points are shown, if anywhere."""
    return " ".join(filter(None, (_model_answer(item), _shown_in(item))))


def _model_answer(item: DrillCard, *, numbered: bool = False) -> str:
    """The model answer of ``item`` in the language in use: its key points in order (``①`` ``②`` … if ``numbered``)."""
    return join(*(f"{_CIRCLED[j] if numbered else ''}{_(p)}" for j, p in enumerate(item.points)))


class InterviewDrill:
    """Interview practice: write an answer first, then compare it with the model answer and score it.

    Per question a ``Textarea`` (``drill.answers[i]``), a "Show the model answer" button
    (``drill.buttons[i]``), the model answer (``drill.model_answers[i]``, empty until the button is
    pressed) and one ``Checkbox`` per key point (``drill.checks[i][j]``, hidden until then). The
    score, shown under the questions, is the key points ticked over all key points. In code:
    ``drill.write(i, text)``, ``drill.reveal(i)``, ``drill.tick(i, j)``, ``drill.score``.

    Where no widget runs the model answers can still be read: the plain-text view lists each question
    with the learner's progress and then its model answer, its key points numbered ①②… so a reader can
    score (a reader of the text, as on GitHub, has no button to press); the static HTML (no kernel: the
    site, the slides) folds each model answer and its key points in a ``<details>``. The live widget
    ends with the same answers folded in one ``<details>`` ("All model answers"), so they are readable
    without the buttons too.
    """

    def __init__(self, items: Iterable[DrillCard], *, title: str = N_("Interview drill")) -> None:
        self.items: tuple[DrillCard, ...] = tuple(items)
        if not self.items:
            raise ValueError("an InterviewDrill needs at least one question")
        self.title = title
        self.revealed: list[bool] = [False] * len(self.items)
        self.answers: list[Any] = []
        self.buttons: list[Any] = []
        self.model_answers: list[Any] = []
        self.checks: list[list[Any]] = []
        self.point_boxes: list[Any] = []
        rows: list[Any] = [
            w.HTML(
                f'{_STYLE}<div class="mmw"><b>{_esc(_(title))}</b> <span class="mmw-note">'
                + _(
                    "Write your answer to each question first, then show the model answer and tick the key points "
                    "your answer made."
                )
                + "</span></div>"
            )
        ]
        for i, item in enumerate(self.items):
            box = w.Textarea(
                value="",
                placeholder=_("Your answer, in a few sentences…"),
                layout=w.Layout(width="100%", height="80px"),
            )
            button = w.Button(description=_("Show the model answer"), layout=w.Layout(width="210px"))
            button.add_class("mm-drill-show")
            shown = w.HTML(value="")
            checks = [
                w.Checkbox(value=False, description=_(p), indent=False, layout=w.Layout(width="100%"))
                for p in item.points
            ]
            for c in checks:
                c.observe(self._on_tick, names="value")
            points = w.VBox(checks, layout=w.Layout(display="none"))
            points.add_class("mm-drill-points")
            button.on_click(self._revealer(i))
            self.answers.append(box)
            self.buttons.append(button)
            self.model_answers.append(shown)
            self.checks.append(checks)
            self.point_boxes.append(points)
            question = w.HTML(f'<div class="mmw mmw-q">{i + 1}. {_esc(_(item.question))}</div>')
            rows += [question, box, button, shown, points]
        self.score_view = w.HTML(value=self._score_html())
        sheet = w.HTML(value=self._all_answers_html())
        self.widget = w.VBox([*rows, self.score_view, sheet], layout=w.Layout(width="100%"))
        self.widget.add_class("mm-interview-drill")

    def _revealer(self, i: int) -> Callable[[Any], None]:
        def on_click(_button: Any) -> None:
            self._show(i)

        return on_click

    def _show(self, i: int) -> None:
        item = self.items[i]
        self.revealed[i] = True
        note = (
            "" if self.answers[i].value.strip() else _(" (you have not written an answer: try first, it sticks better)")
        )
        self.model_answers[i].value = (
            f'<div class="mmw mm-drill-answer"><b>{_("Model answer.")}</b> '
            f"{_esc(_answer_shown(item))}"
            f'<div class="mmw-note">{_("Tick the key points your answer made:")}{_esc(note)}</div></div>'
        )
        self.point_boxes[i].layout.display = "flex"
        self.score_view.value = self._score_html()

    def _on_tick(self, _change: Any) -> None:
        self.score_view.value = self._score_html()

    def write(self, i: int, text: str) -> None:
        """Type ``text`` as the answer to question ``i`` (0-based), as a learner would."""
        self.answers[i].value = text

    def reveal(self, i: int) -> str:
        """Press "Show the model answer" for question ``i``; returns the model answer."""
        self.buttons[i].click()
        return _model_answer(self.items[i])

    def tick(self, i: int, j: int, value: bool = True) -> tuple[int, int]:
        """Tick (or untick) key point ``j`` of question ``i``; returns the new score."""
        if not self.revealed[i]:
            raise ValueError(f"question {i}: show the model answer before ticking its key points")
        self.checks[i][j].value = value
        return self.score

    @property
    def score(self) -> tuple[int, int]:
        """``(ticked key points, all key points)`` over the whole drill."""
        ticked = sum(c.value for checks in self.checks for c in checks)
        return ticked, sum(len(checks) for checks in self.checks)

    def _score_text(self) -> str:
        ticked, total = self.score
        shown = sum(self.revealed)
        return _("Score: {ticked} of {total} key points ({percent}%); {shown} of {n} model answers shown").format(
            ticked=ticked, total=total, percent=round(100 * ticked / total), shown=shown, n=len(self.items)
        )

    def _score_html(self) -> str:
        return f'<div class="mmw mmw-note mm-drill-score">{_esc(self._score_text())}</div>'

    def _all_answers_html(self) -> str:
        items = "".join(f"<li><b>{_esc(_(item.question))}</b> {_esc(_model_answer(item))}</li>" for item in self.items)
        summary = _("All model answers (read them after writing yours)")
        return f'<details class="mmw mm-drill-sheet"><summary>{summary}</summary><ol>{items}</ol></details>'

    def static_html(self) -> str:
        """The questions; each model answer and its key points folded in a ``<details>``."""
        parts = [f'{_STYLE}<div class="mmw mm-interview-drill-static"><b>{_esc(_(self.title))}</b>']
        parts.append(
            f'<div class="mmw-note">{_("Write your answer to each question first, then open the model answer.")}</div>'
        )
        for i, item in enumerate(self.items):
            points = "".join(f"<li>{_esc(_(p))}</li>" for p in item.points)
            parts.append(
                f'<div class="mmw-q">{i + 1}. {_esc(_(item.question))}</div>'
                f"<details><summary>{_('Show the model answer')}</summary>"
                f"<p>{_esc(_answer_shown(item))}</p>"
                f"<p>{_('Key points:')}</p><ul>{points}</ul></details>"
            )
        parts.append("</div>")
        return "".join(parts)

    def __repr__(self) -> str:
        n = len(self.items)
        questions = ngettext("{n} question", "{n} questions", n).format(n=n)
        lines = [
            f"InterviewDrill: {_(self.title)} ({questions}; {self._score_text()})",
            _("Each model answer below is its key points ①②…: tick the ones your answer made."),
        ]
        for i, item in enumerate(self.items):
            words = _words(self.answers[i].value)
            state = (
                [ngettext("your answer: {n} word", "your answer: {n} words", words).format(n=words)] if words else []
            )
            if self.revealed[i]:
                ticked = sum(c.value for c in self.checks[i])
                state.append(
                    _("model answer shown, {ticked} of {n} key points ticked").format(
                        ticked=ticked, n=len(self.checks[i])
                    )
                )
            lines.append(f"  {i + 1}. {_(item.question)}" + (f"  [{'; '.join(state)}]" if state else ""))
            lines.append("     " + _model_answer(item, numbered=True))
            if shown_in := _shown_in(item):  # a point no core cell shows
                lines.append("     " + shown_in)
        return "\n".join(lines)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        return _bundle(self.widget, repr(self), self.static_html())


# ---------------------------------------------------------------------------------------
# Display
# ---------------------------------------------------------------------------------------


def _bundle(widget: Any, text: str, static_html: str) -> dict[str, Any]:
    """The widget's view plus a static ``text/html`` and a deterministic ``text/plain``."""
    data: dict[str, Any] = dict(widget._repr_mimebundle_())
    data["text/plain"] = text
    data["text/html"] = static_html
    return data
