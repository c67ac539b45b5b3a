"""``--memory-limit-mb`` for the subcommands that solve MIPs (``brcg``, ``crosscheck``).

The shared helper is :func:`rulecert.cli._run.add_memory_argument` (the same flag on every
subcommand); this module uses it when it is there and otherwise adds the same flag itself.
"""
from __future__ import annotations

import argparse


def add_memory_argument(p) -> None:
    """``--memory-limit-mb`` as every subcommand has it (the shared helper of ``_run`` when
    it is there)."""
    try:
        from ._run import add_memory_argument as shared
    except ImportError:  # pragma: no cover - before the shared helper
        p.add_argument("--memory-limit-mb", type=_memory_limit, default="auto",
                       metavar="MB|auto|none",
                       help="stop cleanly (memory_limit) above this resident memory; default "
                            "auto (a share of the machine's memory), none or 0: no cap")
    else:
        shared(p)


def _memory_limit(text: str):
    t = str(text).strip().lower()
    if t in ("none", "off", "0", "0.0"):
        return None
    if t == "auto":
        return "auto"
    try:
        v = float(t)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected 'auto', 'none' or a number of MB, got {text!r}") from None
    if not 0 < v < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a number of MB > 0 (or 'none'), got {text!r}")
    return v
