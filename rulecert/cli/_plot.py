"""``--plot FILE.png`` for every subcommand: the history plot of the run's certificate(s)."""
from __future__ import annotations

import sys


def add_plot_argument(p) -> None:
    p.add_argument("--plot", metavar="FILE.png", default=None,
                   help="write the objective / lower-bound history of the run to this image "
                        "(PNG, SVG or PDF by suffix; needs the 'plot' extra: matplotlib)")


def check_plot_path(args) -> None:
    """Bad --plot values fail before any work: a suffix matplotlib writes, matplotlib present."""
    path = getattr(args, "plot", None)
    if path is None:
        return
    if not str(path).lower().endswith((".png", ".svg", ".pdf")):
        raise ValueError(f"--plot {path}: the file name must end in .png, .svg or .pdf")
    try:
        import matplotlib
    except ImportError:
        raise ValueError("--plot needs matplotlib, which is in the 'plot' extra: "
                         "pip install 'rulecert[plot]'") from None
    matplotlib.use("Agg")


def write_plot(args, certificates, labels=None) -> None:
    """Draw ``certificates`` with :func:`rulecert.plotting.plot_history` into ``args.plot``."""
    path = getattr(args, "plot", None)
    if path is None:
        return
    from .. import plotting
    ax = plotting.plot_history(list(certificates), labels=labels)
    ax.set_title(f"rulecert {args.command}: " + ax.get_title(), fontsize=9)
    try:
        plotting.save(ax, path)
    except OSError as exc:           # a full disk fails at the write, where no path is named
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    print(f"history plot written to {path}", file=sys.stderr)
