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
    from msgmodel.api.server import configure_serve

    configure_serve(parser)


def _run_serve(args: argparse.Namespace) -> int:
    from msgmodel.api.server import run_serve

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
