"""The entry point, ``python -m msgmodel`` (installed as ``msgmodel``): the core's commands plus ``serve``.

The only module that knows every layer: it hands the core's command line
(``msgmodel.core.cli``) the local Messages API's ``serve`` command, imported only when
that command runs.
"""

from __future__ import annotations

import argparse
import sys

from msgmodel.core.cli import SUBCOMMANDS, Subcommand
from msgmodel.core.cli import main as _main

__all__ = ["COMMANDS", "main"]


def _configure_serve(parser: argparse.ArgumentParser) -> None:
    try:
        from msgmodel.api.server import configure_serve
    except ImportError:  # no [api] extra: `serve` takes its arguments and reports the missing extra when run
        for option in ("--port", "--host", "--script"):
            parser.add_argument(option, help=argparse.SUPPRESS)
        parser.add_argument("--any-model", action="store_true", help=argparse.SUPPRESS)
        return
    configure_serve(parser)


def _run_serve(args: argparse.Namespace) -> int:
    try:
        from msgmodel.api.server import run_serve
    except ImportError as e:  # MissingExtraError names the extra and the install line
        print(f"msgmodel serve: {e}", file=sys.stderr)
        return 2
    return run_serve(args)


COMMANDS: dict[str, Subcommand] = {
    **SUBCOMMANDS,
    "serve": Subcommand("serve the local Messages API over HTTP (loopback only)", _configure_serve, _run_serve),
}


def main(argv: list[str] | None = None) -> int:
    """Run one command of ``COMMANDS``; returns the exit status."""
    return _main(argv, commands=COMMANDS)


if __name__ == "__main__":
    sys.exit(main())
