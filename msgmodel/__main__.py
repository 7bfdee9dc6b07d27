"""``python -m msgmodel``: the command line (see ``msgmodel.cli``)."""

from msgmodel.cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
