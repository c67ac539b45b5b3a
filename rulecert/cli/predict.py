"""``rulecert predict``: apply a model saved with ``--save-model`` (or
:func:`rulecert.export.save_model`) to a CSV, writing one prediction per row.

The output CSV has the columns ``row`` (the data row, from 0), ``prediction`` (the class label)
and, with ``--proba``, ``P(<label>)`` of the second class.  When the data carry the model's
target column, the accuracy is reported on stderr.  Missing values: the model's binarizer
decides when it was fitted with ``--missing indicator`` or ``category``; otherwise a missing
value is an error naming the column (``--missing error``, the default) or its row is left out
(``--missing drop``).
"""
from __future__ import annotations

import os
import sys


def add_parser(sub) -> None:
    from ._data import add_header_argument
    p = sub.add_parser("predict", help="apply a saved model (--save-model M.json) to a CSV")
    p.add_argument("--model", required=True, metavar="M.json", help="a saved rulecert model")
    p.add_argument("--data", required=True, metavar="X.csv",
                   help="a CSV with the model's input columns (others, such as the target, are "
                        "ignored)")
    add_header_argument(p)
    p.add_argument("--out", default=None, metavar="PREDS.csv",
                   help="write the predictions here (default: standard output)")
    p.add_argument("--proba", action="store_true",
                   help="add the probability of the second class (training frequency)")
    p.add_argument("--target", default=None,
                   help="target column to score against (default: the model's, when present)")
    p.add_argument("--missing", default="error", choices=["error", "drop"],
                   help="rows with missing input values: error (default) or drop them "
                        "(models fitted with --missing indicator/category handle them)")
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (rules text, predictions, accuracy) instead of CSV")
    p.set_defaults(func=run)


def run(args) -> int:
    import json

    import numpy as np
    import pandas as pd

    from ..export import load_model
    from ._data import apply_missing_policy, read_csv_frame

    if getattr(args, "plot", None):
        raise ValueError("--plot does not apply to predict (no solver runs)")
    saved = load_model(args.model)
    path = os.path.expanduser(args.data)
    if not os.path.exists(path):
        raise FileNotFoundError(f"--data {path}: no such file")
    df = read_csv_frame(path, args.header)
    df = df.assign(row=np.arange(len(df))) if "row" not in df.columns else df
    saved.check_columns(df)
    cols = saved.input_columns
    handles = saved.binarizer is not None and saved.binarizer.missing in ("indicator", "category")
    if not handles or args.missing == "drop":
        df = apply_missing_policy(df, args.missing, path, cols)
    target = args.target if args.target is not None else saved.meta.get("target")
    if args.target is not None and args.target not in df.columns:
        raise ValueError(f"--target {args.target!r} is not a column of {path}")
    pred = saved.predict(df)
    out = pd.DataFrame({"row": df["row"].to_numpy(), "prediction": pred})
    if args.proba:
        out[f"P({saved.classes_[1]})"] = saved.predict_proba(df)[:, 1]
    accuracy = None
    if target is not None and target in df.columns:
        truth = df[target].astype(str).to_numpy()
        accuracy = float(np.mean(truth == np.asarray(pred).astype(str)))
        print(f"rulecert predict: accuracy on {target!r}: {accuracy:.4f} ({len(df)} rows)",
              file=sys.stderr)
    if args.json:
        print(json.dumps({"model": args.model, "data": path, "rules_text": saved.to_text(),
                          "accuracy": accuracy, "target": target,
                          "predictions": out.to_dict(orient="list")}, default=str))
    elif args.out is not None:
        try:
            out.to_csv(os.path.expanduser(args.out), index=False)
        except OSError as exc:       # a full disk fails at the write, where no path is named
            raise OSError(exc.errno, exc.strerror, args.out) from None
        print(f"{len(out)} predictions written to {args.out}", file=sys.stderr)
    else:
        out.to_csv(sys.stdout, index=False)
    return 0
