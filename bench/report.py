"""bench/RESULTS.md from one run's results (``python -m bench.run --publish``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


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
        f"**{r['x_vs_pydantic_union']:.1f}×** a pydantic discriminated union. `from_json` takes "
        f"**{r['x_vs_collector_off']:.2f}×** the time of the same decode with the cycle collector off."
    )
    return rows


def write_markdown(results: dict[str, Any], path: Path, notes: str = "") -> None:
    m = results["machine"]
    p1, p1d, p2, p3, p4, p5 = (results[k] for k in ("P1", "P1_dense", "P2", "P3", "P4", "P5"))
    p4d = results["P4_dense"]
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
        f"- Session: {results['messages']:,} generated messages (`msgmodel.course.synth.synth_session`), "
        f"{results['json_mb']:.1f} MB of JSON; whole run {results['total_s']:.0f} s",
        "",
        "| goal | result | |",
        "|---|---|---|",
        f"| P1 decode ≥ 20× the SDK, ≥ 3× `json.loads` | {p1['x_vs_sdk']:.1f}× / {p1['x_vs_json_loads']:.1f}× "
        f"(dense shape: {p1d['x_vs_sdk']:.1f}× / {p1d['x_vs_json_loads']:.1f}×) | {_goal(p1['goal_met'])} |",
        f"| P1 `from_json` ≤ 1.3× its time with the collector off | {p1['x_vs_collector_off']:.2f}× "
        f"(dense shape: {p1d['x_vs_collector_off']:.2f}×) "
        f"| {_goal(p1['collector_goal_met'] and p1d['collector_goal_met'])} |",
        f"| P2 `validate` ≤ `json.loads` | {p2['validate_over_json_loads']:.2f}× | {_goal(p2['goal_met'])} |",
        "| P3 linear: t(10n)/t(n) ≤ 12 | "
        + ", ".join(f"×{g['compact']:.1f} / ×{g['transcript_of']:.1f}" for g in p3["growth"])
        + f" | {_goal(p3['goal_met'])} |",
        f"| P4 memory ≤ 0.5× dicts | {p4['ratio']:.2f}× (dense shape: {p4d['ratio']:.2f}×) "
        f"| {_goal(p4['goal_met'] and p4d['goal_met'])} |",
        f"| P5 `import msgmodel` ≤ 150 ms | {p5['import_msgmodel_s'] * 1000:.0f} ms | {_goal(p5['goal_met'])} |",
        "",
        "## P1 — decode and schema check of the session",
        "",
        *_p1_table(p1),
        "",
        f"The same without long tool outputs ({p1d['json_mb']:.1f} MB, more blocks per byte):",
        "",
        *_p1_table(p1d),
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
            f"| {shape} | {x['msgmodel_bytes'] / 1e6:.1f} MB | {x['dicts_bytes'] / 1e6:.1f} MB | {x['ratio']:.2f}× |"
            for shape, x in (("long tool outputs", p4), ("dense", p4d))
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
