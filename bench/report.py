"""bench/RESULTS.md from one run's results (``python -m bench.run --publish``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bench.goals import LIMIT_GOAL, MEMORY_GOAL, SHAPES


def _ms(s: float) -> str:
    return f"{s * 1000:,.1f} ms"


def _goal(ok: bool) -> str:
    return "**met**" if ok else "**missed**"


def _p1_table(r: dict[str, Any]) -> list[str]:
    rows = ["| decoder | median |", "|---|---:|"]
    for name, sec in sorted(r["seconds"].items(), key=lambda kv: kv[1]):
        rows.append(f"| {name} | {_ms(sec)} |")
    rows.append("")
    rows.append(
        f"msgmodel is **{r['x_vs_sdk']:.1f}×** the SDK path, **{r['x_vs_json_loads']:.1f}×** bare `json.loads`, "
        f"**{r['x_vs_pydantic_union']:.1f}×** a pydantic discriminated union."
    )
    return rows


def write_markdown(results: dict[str, Any], path: Path, notes: str = "") -> None:
    m = results["machine"]
    p1, p1d, p1a, limit, p2, p3, p5 = (results[k] for k in ("P1", "P1_dense", "P1_agent", "P1_limit", "P2", "P3", "P5"))
    p4s = {shape: results[k] for shape, k in zip(SHAPES, ("P4", "P4_dense", "P4_agent"), strict=True)}
    ratios = limit["shapes"]
    lines = [
        "# Benchmark results",
        "",
        "Written by `python -m bench.run --publish` (`make bench` runs the same into build/bench/, "
        "leaving this file and bench/results.json alone).",
        "Every comparison is made inside one run; candidates are timed round-robin (CPU time of the",
        "benchmark process) and the median is kept, so the ratios are what matters — the machine is",
        "shared and noisy.",
        "",
        f"- Machine: {m['platform']} ({m['processor']}), Python {m['python']}, 2 cores",
        f"- Versions: msgmodel {m['msgmodel']}, msgspec {m['msgspec']}, pydantic {m['pydantic']}, "
        f"anthropic {m['anthropic']}",
        f"- Sessions: {results['messages']:,} generated messages in three shapes (`msgmodel.course.synth`): "
        f"long tool outputs ({results['json_mb']:.1f} MB of JSON), dense ({p1d['json_mb']:.1f} MB) and "
        f"agent ({p1a['json_mb']:.1f} MB); whole run {results['total_s']:.0f} s",
        "",
        "| goal | result | |",
        "|---|---|---|",
        f"| P1 decode ≥ 20× the SDK, ≥ 3× `json.loads` | {p1['x_vs_sdk']:.1f}× / {p1['x_vs_json_loads']:.1f}× "
        f"(dense: {p1d['x_vs_sdk']:.1f}× / {p1d['x_vs_json_loads']:.1f}×, "
        f"agent: {p1a['x_vs_sdk']:.1f}× / {p1a['x_vs_json_loads']:.1f}×) | {_goal(p1['goal_met'])} |",
        f"| P1 `from_json` ≤ {LIMIT_GOAL}× the bare decode, every shape | "
        + ", ".join(f"{x['ratio']:.2f}× ({shape})" for shape, x in ratios.items())
        + f" | {_goal(limit['goal_met'])} |",
        f"| P2 `validate` ≤ `json.loads` | {p2['validate_over_json_loads']:.2f}× | {_goal(p2['goal_met'])} |",
        "| P3 linear: t(10n)/t(n) ≤ 12 | "
        + ", ".join(f"×{g['compact']:.1f} / ×{g['transcript_of']:.1f}" for g in p3["growth"])
        + f" | {_goal(p3['goal_met'])} |",
        f"| P4 memory ≤ {MEMORY_GOAL}× dicts, every shape | "
        + ", ".join(f"{x['ratio']:.3f}× ({shape})" for shape, x in p4s.items())
        + f" | {_goal(all(x['goal_met'] for x in p4s.values()))} |",
        f"| P5 `import msgmodel` ≤ 150 ms | {p5['import_msgmodel_s'] * 1000:.0f} ms | {_goal(p5['goal_met'])} |",
        "",
        "## P1 — the decoder against its limit",
        "",
        "The limit is the bare msgspec decode into the same structs with the cycle collector paused, as "
        "`from_json` pauses it: what `from_json` cannot beat. Each shape is timed in "
        f"**{limit['rounds']} pairs** (the two back to back, in turns first); the ratio is the median of the "
        "pairs' ratios (`bench.run.paired_ratio`), the times are medians.",
        "",
        "| shape | `from_json` | the limit | ratio |",
        "|---|---:|---:|---:|",
        *(
            f"| {shape} | {_ms(x['from_json'])} | {_ms(x['limit'])} | {x['ratio']:.2f}× |"
            for shape, x in ratios.items()
        ),
        "",
        "## P1 — decode and schema check of the session",
        "",
        f"Long tool outputs ({results['json_mb']:.1f} MB), median of the run's rounds:",
        "",
        *_p1_table(p1),
        "",
        f"Dense: the same without long tool outputs ({p1d['json_mb']:.1f} MB, more blocks per byte):",
        "",
        *_p1_table(p1d),
        "",
        f"Agent: a prompt, then rounds of signed thinking, text, one call and its result ({p1a['json_mb']:.1f} MB):",
        "",
        *_p1_table(p1a),
        "",
        "## P2 — `protocol.validate` on the same session",
        "",
        "| | median |",
        "|---|---:|",
        *(f"| {k} | {_ms(v)} |" for k, v in p2["seconds"].items()),
        "",
        "## P3 — `compact` and `transcript_of`, 10⁴ to 10⁶ messages",
        "",
        "| messages | compact | transcript_of |",
        "|---:|---:|---:|",
        *(f"| {r['n']:,} | {_ms(r['compact'])} | {_ms(r['transcript_of'])} |" for r in p3["rows"]),
        "",
        "## P4 — memory of the loaded session (tracemalloc)",
        "",
        "| shape | msgmodel | dicts (`json.loads`) | ratio |",
        "|---|---:|---:|---:|",
        *(
            f"| {shape} | {x['msgmodel_bytes'] / 1e6:.1f} MB | {x['dicts_bytes'] / 1e6:.1f} MB | {x['ratio']:.3f}× |"
            for shape, x in p4s.items()
        ),
        "",
        "## P5 — import",
        "",
        f"`import msgmodel` costs {p5['import_msgmodel_s'] * 1000:.0f} ms over a bare interpreter "
        f"({p5['python_startup_s'] * 1000:.0f} ms). The SDK and ipywidgets are imported only where a client "
        "or a widget is made.",
        "",
        "## Reproduce",
        "",
        "```bash",
        "make bench                       # prints the table, writes build/bench/results.json",
        ".venv/bin/python -m bench.run --publish   # also rewrites this file",
        "```",
    ]
    if notes:
        lines += ["", "## Notes", "", notes.strip()]
    path.write_text("\n".join(lines) + "\n")
