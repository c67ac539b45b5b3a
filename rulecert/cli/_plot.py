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
    """Draw ``certificates`` with :func:`rulecert.plotting.plot_history` into ``args.plot``,
    after the result is printed (:func:`~rulecert.cli._run.write_after_result`)."""
    if getattr(args, "plot", None) is None:
        return

    def draw():
        from .. import plotting
        ax = plotting.plot_history(list(certificates), labels=labels)
        ax.set_title(f"rulecert {args.command}: " + ax.get_title(), fontsize=9)
        return ax

    write_figure(args, draw)


def write_figure(args, draw) -> None:
    """``--plot``: the figure whose axes ``draw()`` returns, saved to ``args.plot`` after
    the result is printed (:func:`~rulecert.cli._run.write_after_result`)."""
    path = getattr(args, "plot", None)
    if path is None:
        return
    from ._run import write_after_result

    def write():
        from .. import plotting
        plotting.save(draw(), path)
        print(f"plot written to {path}", file=sys.stderr)

    write_after_result(args, "--plot", write)
