"""Reading a problem for the command line: a CSV (binary or raw columns) or a CORELS file stem."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np


def add_data_arguments(p) -> None:
    p.add_argument("--data", required=True,
                   help="a CSV file (target column: --target, default the last) or a CORELS file "
                        "stem (PATH.out + PATH.label)")
    p.add_argument("--target", default=None, help="target column of a CSV (default: last column)")
    p.add_argument("--positive", default=None,
                   help="value of the target that counts as positive (default: 1, 'yes', 'true' "
                        "or the larger of two values)")
    p.add_argument("--max-card", type=int, default=2, help="longest conjunction mined from a CSV")
    p.add_argument("--min-support", type=float, default=0.01,
                   help="antecedent support must lie in [s, 1 - s] (CSV input)")
    p.add_argument("--no-negations", dest="negations", action="store_false",
                   help="do not use negated literals when mining a CSV")


def _is_corels_stem(path: str) -> bool:
    s = path[:-4] if path.endswith(".out") else path
    return Path(s + ".out").exists() and Path(s + ".label").exists()


def _positive_labels(col) -> np.ndarray:
    vals = list(dict.fromkeys(col.dropna().tolist()))
    if col.isna().any():
        raise ValueError(f"target column {col.name!r} has {int(col.isna().sum())} missing values")
    if len(vals) != 2:
        raise ValueError(f"target column {col.name!r} must have two values, found {len(vals)}: {vals[:5]}")
    for pos in (1, "1", "yes", "Yes", "true", "True", True):
        if pos in vals:
            return (col == pos).to_numpy().astype(np.int8)
    return (col == sorted(vals, key=str)[1]).to_numpy().astype(np.int8)


def read_csv_table(path: str, args):
    """(frame, feature columns, 0/1 labels, target name) of a CSV, with --target / --positive."""
    import pandas as pd
    df = pd.read_csv(path)
    target = args.target if args.target is not None else df.columns[-1]
    if target not in df.columns:
        raise ValueError(f"--target {target!r} is not a column of {path}; columns: {list(df.columns)}")
    col = df[target]
    y = ((col.astype(str) == str(args.positive)).to_numpy().astype(np.int8)
         if args.positive is not None else _positive_labels(col))
    return df, df.drop(columns=[target]), y, target


def is_binary_frame(X) -> bool:
    """True when every column holds only 0/1 and no missing value."""
    return all(not X[c].isna().any() and X[c].isin([0, 1]).all() for c in X.columns)


def load_problem(args):
    """(RuleProblem, description) from --data and the mining options."""
    path = os.path.expanduser(args.data)
    from ..mining import read_corels
    if _is_corels_stem(path):
        problem = read_corels(path)
        return problem, f"CORELS files {path}.out/.label"
    if not Path(path).exists():
        raise FileNotFoundError(f"--data {path}: neither a CSV file nor a CORELS file stem "
                                "(PATH.out and PATH.label)")
    from ..mining.antecedents import mine_antecedents
    df, X, y, target = read_csv_table(path, args)
    binary = is_binary_frame(X)
    if not binary:
        from ..mining import FeatureBinarizer
        print(f"rulecert: {path} has non-binary columns; binarizing them with FeatureBinarizer",
              file=sys.stderr)
        X = FeatureBinarizer(negations=False).fit_transform(X)
    aset = mine_antecedents(X.to_numpy(), [str(c) for c in X.columns], max_card=args.max_card,
                            min_support=args.min_support, negations=args.negations)
    return aset.to_problem(y), (f"{path}: {len(df)} rows, target {target!r}, "
                                f"{aset.captures.shape[0]} antecedents mined")
