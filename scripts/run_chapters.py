"""Run every chapter top to bottom in a fresh kernel, as a learner's "Restart and run all" does.

    python scripts/run_chapters.py [NN ...]

Uses only what the runtime requirements (``requirements.txt``) install: nbclient comes with
JupyterLab. Nothing is written: the executed notebooks stay in memory. A cell tagged
``raises-exception`` may raise; any other error fails its chapter. Ends with one line
``N passed, M failed`` and exits 1 when a chapter failed.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"


def run(path: Path) -> str | None:
    """``None`` when the chapter ran clean, else why not."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOKS)}})
    try:
        client.execute()
    except CellExecutionError as e:
        return str(e).strip().splitlines()[-1]
    except Exception as e:  # the kernel died, a timeout, ...
        return f"{type(e).__name__}: {e}"
    return None


def main(argv: list[str]) -> int:
    chapters = sorted(NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
    if argv:
        chapters = [c for c in chapters if any(c.name.startswith(a) for a in argv)]
    failed = 0
    for path in chapters:
        start = time.perf_counter()
        problem = run(path)
        took = time.perf_counter() - start
        print(f"{path.name}: {'ok' if problem is None else 'FAILED: ' + problem} ({took:.1f} s)", flush=True)
        failed += problem is not None
    print(f"{len(chapters) - failed} passed, {failed} failed")
    return 1 if failed or not chapters else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
