"""The ``xlate`` console script (``pyproject.toml``: ``xlate = "xlate.console:main"``).

A module of its own so that ``xlate check`` can start glslang's table build
(:mod:`xlate.warmup`) before even the CLI module and argparse are imported; everything else
is :func:`xlate.cli.console_main`.
"""
from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["check"]:
        from . import warmup
        warmup.tune_process()
        warmup.start_early(sys.argv[2:])
    from .cli import console_main
    console_main()


if __name__ == "__main__":
    main()
