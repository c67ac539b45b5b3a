"""Reading a problem for the command line: a CSV (binary or raw columns) or a CORELS file stem.

One missing-value policy for every subcommand (``--missing``):

* ``error`` (default): a missing feature or target value is a one-line error naming the column
  and the count;
* ``drop``: rows with a missing value in any column read (features and target) are dropped,
  and the count is reported on stderr;
* ``indicator`` / ``category``: missing feature values are kept and binarized by
  :class:`~rulecert.mining.FeatureBinarizer` (``col is missing`` literals; for ``category`` a
  missing categorical value is one more category).  A missing target value is an error.

The time limit, the memory cap and Ctrl-C cover the whole command: :func:`deadline` starts the
command's clock (``args.deadline``, a :class:`~rulecert.limits.Deadline` of ``--time-limit``)
before any work, reading, binarizing and mining are watched by one
:class:`~rulecert.monitor.Monitor` on that clock, and the solver is given what is left
(:func:`time_left`).  A step stopped before it has a problem to hand on raises
:class:`~rulecert.limits.LimitStop`, which :func:`reports_limit_stop` turns into one line on
stderr (and a JSON object with ``--json``) and the exit code of a stopped run: 0 for a time
or memory limit, 130 for Ctrl-C.

What was read (the fitted binarizer, the binary columns the model's literals index, the class
labels) is kept in ``args.data_info`` (:class:`DataInfo`) for printing rules with the real
class labels and for ``--save-model``.
"""
from __future__ import annotations

import dataclasses
import functools
import json
import errno
import importlib
import os
import sys
from pathlib import Path

import numpy as np

MISSING = ("error", "drop", "indicator", "category")
HEADER = ("auto", "yes", "no")


@dataclasses.dataclass
class DataInfo:
    """What the subcommand read: ``labels`` (class 0, class 1) as in the data, the fitted
    ``binarizer`` (None for binary columns or CORELS files), the binary ``feature_names`` the
    model's literals index, the ``target`` column and the ``path``."""

    labels: tuple = (0, 1)
    binarizer: object = None
    feature_names: list | None = None
    target: str | None = None
    path: str = ""
    stem: bool = False


def add_missing_argument(p) -> None:
    p.add_argument("--missing", default="error", choices=MISSING,
                   help="missing values: error (default; names the column), drop the rows, or "
                        "binarize them as an 'is missing' literal (indicator) or a category")


def add_save_model_argument(p) -> None:
    p.add_argument("--save-model", metavar="M.json", default=None,
                   help="write the model and its binarizer to this JSON file, for "
                        "'rulecert predict --model M.json --data X.csv'")


def add_header_argument(p) -> None:
    p.add_argument("--header", default="auto", choices=HEADER,
                   help="does the CSV's first row name the columns? auto (default): yes unless "
                        "every field of it is a number (then the columns are x0, x1, ...)")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


READ_CELLS = 1 << 21
"""Fields of a CSV read between two checks of the command's limits (a block of rows)."""


def read_csv_frame(path: str, header: str = "auto", check=None):
    """A CSV as a DataFrame.  ``header`` "yes": the first row names the columns; "no": it is
    data and the columns are ``x0, x1, ...``; "auto": "no" when every field of the first row
    is a number (UCI files such as pima's have no header row), said on stderr.  The file is
    read a block of about :data:`READ_CELLS` fields at a time, ``check(detail)``
    (:func:`rulecert.monitor.stop_check`) asked after each block and before they are joined."""
    import csv

    import pandas as pd
    if header not in HEADER:
        raise ValueError(f"--header must be one of {HEADER}, got {header!r}")
    with open(path, newline="") as fh:
        first = next(csv.reader(fh), [])
    if header == "auto":
        header = "no" if first and all(_is_number(f.strip()) for f in first) else "yes"
        if header == "no":
            print(f"rulecert: {path}: the first row is all numbers, read as data (no header "
                  f"row); columns x0 ... x{len(first) - 1} (--header yes to read it as names)",
                  file=sys.stderr)
    options = {} if header == "yes" else {"header": None}
    blocks, rows = [], 0
    if check is not None:
        check("")
    with pd.read_csv(path, chunksize=max(1, READ_CELLS // max(1, len(first))),
                     low_memory=False, **options) as reader:
        for block in reader:
            blocks.append(block.copy())    # one array per dtype, not one per column: every
            rows += len(block)             # later step over 5,000 columns took seconds
            if check is not None:
                check(f" (row {rows:,})")
    df = (pd.concat(blocks, ignore_index=True) if len(blocks) > 1
          else blocks[0] if blocks else pd.read_csv(path, **options))
    del blocks
    if check is not None:
        check(f" ({rows:,} rows)")
    if header == "no":
        df.columns = [f"x{j}" for j in range(df.shape[1])]
    return df


def add_data_arguments(p) -> None:
    p.add_argument("--data", required=True,
                   help="a CSV file (target column: --target, default the last) or a CORELS file "
                        "stem (PATH.out + PATH.label)")
    add_header_argument(p)
    p.add_argument("--target", default=None, help="target column of a CSV (default: last column)")
    p.add_argument("--positive", default=None,
                   help="value of the target that counts as positive (default: 1, 'yes', 'true' "
                        "or the larger of two values)")
    p.add_argument("--max-card", type=int, default=2, help="longest conjunction mined from a CSV")
    p.add_argument("--min-support", type=float, default=0.01,
                   help="antecedent support must lie in [s, 1 - s] (CSV input)")
    p.add_argument("--no-negations", dest="negations", action="store_false",
                   help="do not use negated literals when mining a CSV")
    add_missing_argument(p)


def is_corels_stem(path: str) -> bool:
    s = path[:-4] if path.endswith(".out") else path
    return Path(s + ".out").exists() and Path(s + ".label").exists()



def _plain_value(v):
    return v.item() if isinstance(v, np.generic) else v


def target_labels(col, positive=None):
    """(0/1 labels, (class 0 label, class 1 label)) of a target column; ``positive`` as
    ``--positive`` (compared as text)."""
    if col.isna().any():
        raise ValueError(f"target column {col.name!r} has {int(col.isna().sum())} missing "
                         "value(s); drop those rows (--missing drop) or fill them")
    vals = [_plain_value(v) for v in dict.fromkeys(col.tolist())]
    if positive is not None:
        y = (col.astype(str) == str(positive)).to_numpy().astype(np.int8)
        hit = [v for v in vals if str(v) == str(positive)]
        if not hit:
            raise ValueError(f"--positive {positive!r} is not a value of the target column "
                             f"{col.name!r}; values: {vals[:5]}")
        others = [v for v in vals if str(v) != str(positive)]
        neg = others[0] if len(others) == 1 else f"not {hit[0]}"
        return y, (neg, hit[0])
    if len(vals) != 2:
        raise ValueError(f"target column {col.name!r} must have two values, found {len(vals)}: {vals[:5]}")
    for pos in (1, "1", "yes", "Yes", "true", "True", True):
        if pos in vals:
            pos = vals[vals.index(pos)]
            break
    else:
        pos = sorted(vals, key=str)[1]
    neg = [v for v in vals if v != pos][0]
    return (col == pos).to_numpy().astype(np.int8), (neg, pos)


def apply_missing_policy(df, policy: str, path: str, columns=None):
    """``df`` under the ``--missing`` policy (see the module doc), for the ``columns`` read
    (default: all): unchanged, or without the rows that have a missing value there."""
    part = df if columns is None else df[list(columns)]
    counts = {c: int(k) for c, k in part.isna().sum().items() if k}
    if not counts:
        return df
    if policy == "drop":
        keep = ~part.isna().any(axis=1)
        print(f"rulecert: {path}: dropped {int((~keep).sum())} of {len(df)} rows with missing "
              f"values (--missing drop)", file=sys.stderr)
        if not keep.any():
            raise ValueError(f"{path}: every row has a missing value; nothing left after "
                             "--missing drop")
        return df[keep].reset_index(drop=True)
    if policy == "error":
        c, k = next(iter(counts.items()))
        more = f" (and {len(counts) - 1} more columns)" if len(counts) > 1 else ""
        raise ValueError(f"column {c!r} of {path} has {k} missing value(s){more}; choose "
                         "--missing drop, indicator or category")
    return df


def read_csv_table(path: str, args, check=None):
    """(frame, feature columns, 0/1 labels, target name) of a CSV, with --target / --positive
    and the --missing policy; the class labels go to ``args.data_info``.  ``check`` as in
    :func:`read_csv_frame`."""
    df = read_csv_frame(path, getattr(args, "header", "auto"), check)
    if df.shape[1] < 2:
        raise ValueError(f"{path} has {df.shape[1]} column(s); a feature and a target are needed")
    target = args.target if args.target is not None else df.columns[-1]
    if target not in df.columns:
        raise ValueError(f"--target {target!r} is not a column of {path}; columns: {list(df.columns)}")
    policy = getattr(args, "missing", "error")
    if df[target].isna().any() and policy != "drop":
        target_labels(df[target])           # the one-line error
    df = apply_missing_policy(df, policy, path)
    y, labels = target_labels(df[target], args.positive)
    args.data_info = DataInfo(labels=labels, target=str(target), path=path)
    return df, df.drop(columns=[target]), y, target


def is_binary_frame(X, check=None) -> bool:
    """True when every column holds only 0/1 and no missing value; the numeric columns are
    read a block at a time, ``check(detail)`` asked before each."""
    import pandas as pd
    numeric = [c for c, t in X.dtypes.items() if pd.api.types.is_numeric_dtype(t)]
    step = max(1, READ_CELLS // max(1, len(X)))
    for j in range(0, len(numeric), step):
        if check is not None:
            check(f" (column {numeric[j]!r})")
        block = X[numeric[j:j + step]].to_numpy(dtype=float, na_value=np.nan)
        if not np.isin(block, (0, 1)).all():
            return False
    numeric = set(numeric)
    return all(not X[c].isna().any() and X[c].isin([0, 1]).all()
               for c in X.columns if c not in numeric)


def binarize_frame(X, args, check=None, **options):
    """(binary frame, fitted FeatureBinarizer or None): binary columns as they are, others
    binarized under the --missing policy; ``check()`` asked column by column
    (:meth:`FeatureBinarizer.fit`, :meth:`FeatureBinarizer.transform`)."""
    if is_binary_frame(X, check):
        return X, None
    from ..mining import FeatureBinarizer
    policy = getattr(args, "missing", "error")
    fb = FeatureBinarizer(missing=policy if policy in ("indicator", "category") else "error",
                          **options)
    return fb.fit(X, check=check).transform(X, check=check), fb


def _stem_labels(path: str):
    """The class labels of a CORELS ``.label`` file: the text after the last ``:`` of each
    line's name (``{recidivate:No}`` -> ``No``)."""
    s = path[:-4] if path.endswith(".out") else path
    names = []
    with open(s + ".label") as fh:
        for line in fh:
            line = line.strip()
            if line.startswith("{") and "}" in line:
                names.append(line[1:line.index("}")].rpartition(":")[2])
    return tuple(names) if len(names) == 2 else (0, 1)


def deadline(args):
    """The command's :class:`~rulecert.limits.Deadline` (``--time-limit``, checked), kept in
    ``args.deadline``: started at ``args.started`` (the ``rulecert`` process's start, so its
    imports count too: :func:`process_age`), or by the first call (:func:`open_data`) when
    ``main`` is called from Python."""
    if getattr(args, "deadline", None) is None:
        import time

        from ..limits import Deadline, check_time_limit
        limit = check_time_limit(getattr(args, "time_limit", None), "--time-limit")
        started = getattr(args, "started", None)
        args.deadline = Deadline(limit, start=time.perf_counter() if started is None else started)
    return args.deadline


def process_age() -> float:
    """Seconds since this process started (Linux ``/proc``; 0 elsewhere)."""
    try:
        with open("/proc/self/stat") as fh:            # field 22: start, in ticks after boot
            started = int(fh.read().rpartition(")")[2].split()[19]) / os.sysconf("SC_CLK_TCK")
        with open("/proc/uptime") as fh:
            return max(0.0, float(fh.read().split()[0]) - started)
    except (OSError, ValueError, IndexError, AttributeError):    # pragma: no cover - not Linux
        return 0.0


def time_left(args):
    """Seconds of ``--time-limit`` the command has not used yet (at least a millisecond), for
    the solver; ``None`` without a limit."""
    return deadline(args).remaining()


def preparation_monitor(args):
    """The :class:`~rulecert.monitor.Monitor` of reading, binarizing and mining: the
    command's clock, ``--memory-limit-mb`` and Ctrl-C."""
    from ..limits import resolve_memory_limit_mb
    from ..monitor import Monitor
    return Monitor("rulecert-data", deadline=deadline(args),
                   memory_limit_mb=resolve_memory_limit_mb(getattr(args, "memory_limit_mb", None)))


def reports_limit_stop(run):
    """Wrap a subcommand's ``run`` so that a :class:`~rulecert.limits.LimitStop` (a limit or
    Ctrl-C that stopped the preparation) ends it as a stopped run: one line on stderr, with
    ``--json`` a JSON object (``termination``, ``proven_optimal`` false, ``message``), exit
    code 130 for Ctrl-C and 0 for a time or memory limit (as any limit-stopped run)."""
    @functools.wraps(run)
    def wrapped(args):
        from ..certificate import Termination
        from ..limits import LimitStop
        from ._run import EXIT_INTERRUPTED
        try:
            return run(args)
        except LimitStop as stop:
            print(f"rulecert {getattr(args, 'command', '')}: stopped: {stop}; no model",
                  file=sys.stderr)
            if getattr(args, "json", False):
                print(json.dumps({"termination": getattr(stop.termination, "value",
                                                         stop.termination),
                                  "proven_optimal": False, "message": str(stop),
                                  "data": getattr(args, "data", None)}))
            return EXIT_INTERRUPTED if stop.termination is Termination.INTERRUPTED else 0
    return wrapped


def open_data(args):
    """(path, problem) of ``--data``, the command's clock started (:func:`deadline`): a
    CORELS file stem gives its ``RuleProblem`` (and ``args.data_info``), a CSV file None; a
    missing file, or ``--save-model`` with CORELS files, is refused."""
    deadline(args)
    path = data_path(args)
    if is_corels_stem(path):
        if getattr(args, "save_model", None):
            raise ValueError("--save-model needs a CSV: the antecedents of CORELS files have no "
                             "definition over the data's columns")
        from ..mining import read_corels
        problem = read_corels(path)
        args.data_info = DataInfo(labels=_stem_labels(path), path=path, stem=True)
        return path, problem
    # the binarizer's imports (scikit-learn: seconds on a busy machine, and no import can
    # be stopped) before the reading, which asks the clock: a limit is not overrun by them
    importlib.import_module("rulecert.mining.binarize")
    return path, None


def data_path(args) -> str:
    """``--data``, checked (``main`` asks before any work): a CORELS file stem, or a file
    that exists and is not a folder."""
    path = os.path.expanduser(args.data)
    if is_corels_stem(path):
        return path
    if not Path(path).exists():
        raise FileNotFoundError(f"--data {path}: neither a CSV file nor a CORELS file stem "
                                "(PATH.out and PATH.label)")
    if Path(path).is_dir():
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return path


def load_problem(args):
    """(RuleProblem, description) from --data and the mining options, within the command's
    limits: each step is checked (mining inside its loops) and a stop raises
    :class:`~rulecert.limits.LimitStop`, also when the steps used the whole time limit."""
    from ..mining.antecedents import mine_antecedents
    from ..monitor import stop_check
    path, problem = open_data(args)
    monitor = preparation_monitor(args)
    if problem is not None:
        stop_check(monitor, f"reading {path}")()
        return problem, f"CORELS files {path}.out/.label"
    df, X, y, target = read_csv_table(path, args, stop_check(monitor, f"reading {path}"))
    Xb, fb = binarize_frame(X, args, stop_check(monitor, f"binarizing {path}"), negations=False)
    if fb is not None:
        print(f"rulecert: {path} has non-binary columns; binarizing them with FeatureBinarizer",
              file=sys.stderr)
    names = [str(c) for c in Xb.columns]
    args.data_info.binarizer, args.data_info.feature_names = fb, names
    n_rows, Xb = len(df), Xb.to_numpy()
    del df, X                                   # the raw table: memory the mining may need
    aset = mine_antecedents(Xb, names, max_card=args.max_card,
                            min_support=args.min_support, negations=args.negations,
                            monitor=monitor)
    if aset.captures.shape[0] == 0:
        import warnings
        warnings.warn(f"no antecedent was mined from {path} (--min-support {args.min_support}, "
                      f"--max-card {args.max_card}): the rule list can hold only the default "
                      "rule, and its certificate is over that empty set")
    problem = aset.to_problem(y)
    stop_check(monitor, f"preparing {path} (read, binarized and mined in "
                        f"{monitor.deadline.elapsed():.1f} s; no search was run)")()
    return problem, (f"{path}: {n_rows} rows, target {target!r}, "
                     f"{aset.captures.shape[0]} antecedents mined")


def class_labels(args) -> tuple:
    """(class 0, class 1) labels of what the subcommand read (0, 1 when unknown)."""
    info = getattr(args, "data_info", None)
    return info.labels if info is not None else (0, 1)


def save_model_if_asked(args, model, **meta) -> None:
    """``--save-model M.json``: write ``model`` with the binarizer and labels of what was read
    (:func:`rulecert.export.save_model`), after the result is printed
    (:func:`~rulecert.cli._run.write_after_result`)."""
    path = getattr(args, "save_model", None)
    if not path:
        return
    from ..export import save_model
    info = getattr(args, "data_info", None) or DataInfo()
    if info.stem:
        raise ValueError("--save-model needs a CSV: the antecedents of CORELS files have no "
                         "definition over the data's columns")
    if isinstance(meta.get("certificate"), dict):     # the certificate without its history
        meta["certificate"] = {k: v for k, v in meta["certificate"].items() if k != "history"}
    meta = {"command": getattr(args, "command", None), "data": info.path, "target": info.target,
            **meta}

    def write():
        save_model(path, model, binarizer=info.binarizer, feature_names=info.feature_names,
                   classes=info.labels, meta=meta)
        print(f"model written to {path}", file=sys.stderr)

    from ._run import write_after_result
    write_after_result(args, "--save-model", write)
