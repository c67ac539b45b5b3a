"""Export a fitted model with its binarizer to JSON, and use it later on raw data.

:func:`save_model` writes one JSON document; :func:`load_model` reads it back as a
:class:`SavedModel` whose ``predict`` / ``predict_proba`` / ``decision_function`` take the
same raw table the model was fitted on (the binarizer is stored in the document) and give the
same results as the fitted estimator.  ``rulecert predict --model M.json --data X.csv`` is the
command-line side, and every learner subcommand writes such a file with ``--save-model``.

The document (``"format": "rulecert-model"``, ``"version": 1``)::

    {"format": "rulecert-model", "version": 1,
     "kind": "RuleList" | "FallingRuleList" | "RuleSet",
     "classes": [negative label, positive label],
     "features": [{"feature": "age", "op": "<=", "value": 25.5, "text": "age <= 25.5"}, ...],
     "rules": [...readable rules, each literal {"feature", "op", "value", "negated", "text"}],
     "text": "if (age <= 25.5 and not (sex == Male)) then predict Yes\\n...",
     "model": {... the model's own to_dict(): literals as (binary column, value) ...},
     "binarizer": {... FeatureBinarizer.to_dict() ...} or null (binary input columns),
     "meta": {"estimator": ..., "params": ..., "certificate": ..., "rulecert_version": ...}}

``features`` lists the binary columns the model's literals index (column ``j`` of the
binarizer's output, or of the binary input table), each with a readable definition; ``rules``
repeats the model with those definitions substituted, for reading and for other tools.  Loading
uses ``model``, ``binarizer`` and ``classes`` only; a document of another format or version
raises ``ValueError``.
"""
from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from .mining.binarize import _plain
from .models import FallingRuleList, RuleList, RuleSet
from .models.antecedent import negated_text

FORMAT = "rulecert-model"
VERSION = 1
_MODELS = {"RuleList": RuleList, "FallingRuleList": FallingRuleList, "RuleSet": RuleSet}

__all__ = ["FORMAT", "VERSION", "SavedModel", "save_model", "load_model", "to_json", "from_json",
           "model_document", "from_document", "fitted_parts"]


# ---- readable literals ----------------------------------------------------------------------
def _feature_dicts(binarizer, names) -> list[dict]:
    if binarizer is not None:
        return binarizer.literal_dicts()
    return [{"feature": str(n), "op": "==", "value": 1, "text": str(n)} for n in names]


def _literal(features, j: int, v: int) -> dict:
    f = features[j]
    if v == 1:
        return {**f, "negated": False}
    return {**f, "negated": True, "text": negated_text(f["text"])}


def _readable_rules(model, features) -> list[dict] | dict:
    def conj(lits):
        if lits is None:
            raise ValueError("the model's antecedents have no literal definition (they were "
                             "read from CORELS files); it cannot be used on new data")
        return [_literal(features, j, v) for j, v in lits]

    if isinstance(model, RuleSet):
        return {"form": model.form,
                "clauses": [{"literals": conj(c), "text": model.clause_text(c)}
                            for c in model.clauses]}
    rules = []
    if isinstance(model, FallingRuleList):
        for a, p in zip(model.antecedents, model.probabilities):
            rules.append({"if": conj(a.literals), "text": a.name, "probability": p})
        rules.append({"else": True, "probability": model.probabilities[-1]})
        return rules
    for a, p in zip(model.antecedents, model.predictions):
        rules.append({"if": conj(a.literals), "text": a.name, "then": p})
    rules.append({"else": True, "then": model.default})
    return rules


# ---- from fitted objects ----------------------------------------------------------------------
def fitted_parts(obj) -> dict[str, Any]:
    """``model``, ``binarizer``, ``feature_names``, ``classes`` and ``meta`` of a fitted
    rulecert estimator, or of a Pipeline of one FeatureBinarizer and one estimator."""
    binarizer = None
    steps = getattr(obj, "steps", None)
    if steps is not None:                       # a scikit-learn Pipeline
        pre = [s for _, s in steps[:-1] if s not in (None, "passthrough")]
        if len(pre) > 1 or (pre and not hasattr(pre[0], "literal_dicts")):
            raise ValueError("only a Pipeline of one FeatureBinarizer and one rulecert "
                             "estimator can be exported")
        binarizer = pre[0] if pre else None
        obj = steps[-1][1]
    model = getattr(obj, "ruleset_", None)
    if model is None:
        model = getattr(obj, "rule_list_", None)
    if model is None:
        raise ValueError(f"{type(obj).__name__} is not a fitted rulecert estimator "
                         "(no rule_list_ or ruleset_); fit it first")
    own = getattr(obj, "binarizer_", None)
    if own is not None:
        if binarizer is not None:
            raise ValueError("a Pipeline's FeatureBinarizer followed by an estimator with its own "
                             "binarizer cannot be exported")
        binarizer = own
    names = list(getattr(obj, "binary_feature_names_", []))
    if binarizer is not None and not names:
        names = [str(n) for n in binarizer.get_feature_names_out()]
    params = {k: v for k, v in obj.get_params(deep=False).items() if k != "binarizer"}
    cert = getattr(obj, "certificate_", None)
    meta = {"estimator": type(obj).__name__, "params": _plain(params)}
    if cert is not None:
        meta["certificate"] = {k: v for k, v in _plain(cert.to_dict()).items() if k != "history"}
    return {"model": model, "binarizer": binarizer, "feature_names": names,
            "classes": list(obj.classes_), "meta": meta}


def model_document(model, *, binarizer=None, feature_names=None, classes=(0, 1),
                   meta: dict | None = None) -> dict:
    """The JSON document of ``model`` (a RuleList, FallingRuleList or RuleSet) over the binary
    columns ``feature_names`` (default: the binarizer's output, or the model's own names)."""
    from ._version import __version__
    kind = type(model).__name__
    if kind not in _MODELS:
        raise ValueError(f"cannot export a {kind}: expected one of {sorted(_MODELS)}")
    if feature_names is None:
        if binarizer is not None:
            feature_names = [str(n) for n in binarizer.get_feature_names_out()]
        elif isinstance(model, RuleSet) and model.feature_names is not None:
            feature_names = list(model.feature_names)
        else:
            raise ValueError("feature_names (the model's binary columns) are needed without a "
                             "binarizer")
    classes = _plain(list(classes))
    if len(classes) != 2:
        raise ValueError(f"classes must be the two class labels, got {classes!r}")
    features = _feature_dicts(binarizer, feature_names)
    if len(features) != len(feature_names):
        raise ValueError(f"the binarizer has {len(features)} output columns but the model was "
                         f"fitted on {len(feature_names)}")
    if kind == "RuleList":
        text = model.to_text(probabilities=bool(model.counts), labels=classes)
    else:
        text = model.to_text(labels=classes)
    return {"format": FORMAT, "version": VERSION, "kind": kind, "classes": classes,
            "features": features, "rules": _readable_rules(model, features), "text": text,
            "model": _plain(model.to_dict()),
            "binarizer": None if binarizer is None else binarizer.to_dict(),
            "meta": {"rulecert_version": __version__, **_plain(meta or {})}}


def save_model(path, obj, *, binarizer=None, feature_names=None, classes=None,
               meta: dict | None = None) -> dict:
    """Write ``obj`` to ``path`` as JSON and return the document.

    ``obj`` is a fitted rulecert estimator, a Pipeline of a FeatureBinarizer and one, or a
    model (RuleList, FallingRuleList, RuleSet) with its ``binarizer`` (or the names of its
    binary ``feature_names``) and ``classes``.
    """
    text = to_json(obj, binarizer=binarizer, feature_names=feature_names, classes=classes,
                   meta=meta)
    doc = json.loads(text)
    try:
        with open(os.path.expanduser(str(path)), "w") as fh:
            fh.write(text + "\n")
    except OSError as exc:           # a full disk fails at the write, where no path is named
        raise OSError(exc.errno, exc.strerror, str(path)) from None
    return doc


def to_json(obj, **kwargs) -> str:
    """The JSON text :func:`save_model` would write (same arguments, no file)."""
    if isinstance(obj, tuple(_MODELS.values())):
        classes = kwargs.pop("classes", None)
        doc = model_document(obj, classes=(0, 1) if classes is None else classes, **kwargs)
    else:
        if any(kwargs.get(k) is not None for k in ("binarizer", "feature_names", "classes")):
            raise ValueError("binarizer, feature_names and classes are read from a fitted "
                             "estimator; pass them only with a model")
        parts = fitted_parts(obj)
        doc = model_document(parts["model"], binarizer=parts["binarizer"],
                             feature_names=parts["feature_names"], classes=parts["classes"],
                             meta={**parts["meta"], **(kwargs.get("meta") or {})})
    return json.dumps(doc, indent=1, default=str)


MAX_MODEL_BYTES = 32 * 2 ** 20
"""The largest model file read (a model of thousands of rules takes well under a MB)."""

OPERATORS = ("<=", ">", "==", "!=", "is missing", "is not missing")
"""The binarizer's literal operators (``<=`` and ``>`` on numeric columns only)."""


def _parse(text: str, source: str, what: str):
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source} is not a JSON {what} ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise ValueError(f"{source}: the JSON nests too deeply for a rulecert model") from None


def from_json(text: str) -> "SavedModel":
    """The :class:`SavedModel` of a JSON text written by :func:`to_json` or :func:`save_model`."""
    if len(text) > MAX_MODEL_BYTES:
        raise ValueError(f"the text has {len(text)} characters, more than a rulecert model "
                         f"({MAX_MODEL_BYTES} at most)")
    return from_document(_parse(text, "the document", "text"))


def load_model(path) -> "SavedModel":
    """The :class:`SavedModel` of a file written by :func:`save_model`: a regular file of at
    most ``MAX_MODEL_BYTES``, checked against the document's schema (``ValueError`` naming
    the file and the field)."""
    import errno
    import stat
    path = os.path.expanduser(str(path))
    if not os.path.exists(path):
        raise FileNotFoundError(f"model file not found: {path}")
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise ValueError(f"{path} is not a regular file (a model file is the JSON file "
                         "--save-model writes)")
    with open(path, "rb") as fh:
        raw = fh.read(MAX_MODEL_BYTES + 1)
    if len(raw) > MAX_MODEL_BYTES:
        raise ValueError(f"{path} is larger than {MAX_MODEL_BYTES // 2 ** 20} MB: not a "
                         "rulecert model file")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a JSON file (not UTF-8 text)") from None
    return from_document(_parse(text, path, "file"), source=path)


def _check_classes(classes) -> list:
    if not isinstance(classes, list) or len(classes) != 2:
        raise ValueError(f"classes: expected the two class labels, got {classes!r:.80} (a "
                         "model is fitted on two classes; rulecert's learners refuse one)")
    if not all(isinstance(c, (str, int, float)) for c in classes) or classes[0] == classes[1]:
        raise ValueError(f"classes: expected two different labels (texts or numbers), got "
                         f"{classes!r:.80}")
    return classes


def _check_features(features) -> list:
    if not isinstance(features, list) or not all(
            isinstance(f, dict) and isinstance(f.get("text"), str) for f in features):
        raise ValueError("features: expected a list of objects with a 'text'")
    return [f["text"] for f in features]


def _check_binarizer(d, n: int) -> None:
    """The binarizer's literals: ``n`` of them (one per binary column), each over one of its
    columns with a known operator (a threshold of a numeric column for ``<=``/``>``)."""
    if not isinstance(d, dict):
        raise ValueError("binarizer: expected an object or null")
    columns, kinds, lits = d.get("columns"), d.get("kinds"), d.get("literals")
    if not isinstance(columns, list) or not isinstance(kinds, dict) or not isinstance(lits, list):
        raise ValueError("binarizer: expected 'columns', 'kinds' and 'literals'")
    if len(lits) != n:
        raise ValueError(f"binarizer.literals: {len(lits)} literals but 'features' lists {n} "
                         "binary columns")
    categories = d.get("categories") or {}
    for c in columns:
        kind = kinds.get(c) if isinstance(c, str) else None
        if kind not in ("binary", "categorical", "numeric"):
            raise ValueError(f"binarizer.kinds: column {c!r:.40} has no known kind (binary, "
                             "categorical or numeric)")
        if kind != "numeric" and not isinstance(categories.get(c), list):
            raise ValueError(f"binarizer.categories: the {kind} column {c!r:.40} has no list "
                             "of categories")
    for j, lit in enumerate(lits):
        where = f"binarizer.literals[{j}]"
        if not isinstance(lit, dict) or lit.get("feature") not in columns:
            raise ValueError(f"{where}: its feature is not one of the binarizer's columns")
        op, value = lit.get("op"), lit.get("value")
        if op not in OPERATORS:
            raise ValueError(f"{where}: unknown operator {op!r:.40} (known: "
                             + ", ".join(OPERATORS) + ")")
        if op in ("<=", ">") and (kinds.get(lit["feature"]) != "numeric" or not isinstance(
                value, (int, float)) or isinstance(value, bool) or not np.isfinite(value)):
            raise ValueError(f"{where}: {op} needs a numeric column and a finite threshold, "
                             f"got {value!r:.40}")


def _check_columns(model, n: int) -> None:
    """Every literal of ``model`` indexes one of the ``n`` binary columns."""
    if isinstance(model, RuleSet):
        parts = [(f"clauses[{k}]", c) for k, c in enumerate(model.clauses)]
    else:
        parts = [(f"rules[{k}].antecedent", a.literals) for k, a in enumerate(model.antecedents)]
    for where, lits in parts:
        if lits is None:
            raise ValueError(f"model.{where}: no literal definition (an antecedent read from "
                             "CORELS files cannot be applied to new data)")
        for i, (j, _) in enumerate(lits):
            if j >= n:
                raise ValueError(f"model.{where}: literal {i} reads column {j}, but the file "
                                 f"defines {n} binary columns ('features')")


def from_document(doc: dict, source: str = "the document") -> "SavedModel":
    """The :class:`SavedModel` of a model document, checked against its schema: two class
    labels, literals over the document's binary columns with 0/1 values, known operators
    (``ValueError`` naming ``source`` and the field)."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        got = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise ValueError(f"{source} is not a rulecert model file (format {got!r}, expected "
                         f"{FORMAT!r}; write one with --save-model or rulecert.export.save_model)")
    if doc.get("version") != VERSION:
        raise ValueError(f"{source} has model format version {doc.get('version')!r}; this "
                         f"rulecert reads version {VERSION}")
    try:
        classes = _check_classes(doc.get("classes"))
        names = _check_features(doc.get("features"))
        md = doc["model"]
        cls = _MODELS.get(md.get("type")) if isinstance(md, dict) else None
        if cls is None:
            raise ValueError(f"model: unknown model type "
                             f"{md.get('type') if isinstance(md, dict) else md!r:.40}")
        try:
            model = cls.from_dict(md)
        except ValueError as exc:
            raise ValueError(f"model: {exc}") from None
        _check_columns(model, len(names))
        binarizer = None
        if doc.get("binarizer") is not None:
            from .mining.binarize import FeatureBinarizer
            _check_binarizer(doc["binarizer"], len(names))
            binarizer = FeatureBinarizer.from_dict(doc["binarizer"])
        meta = doc.get("meta", {})
        if not isinstance(meta, dict):
            raise ValueError("meta: expected an object")
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{source}: malformed rulecert model file ({exc!r})") from None
    except ValueError as exc:
        raise ValueError(f"{source}: {exc}") from None
    return SavedModel(model, binarizer, names, classes, meta, doc)


class SavedModel:
    """A model read from JSON, applied to raw data as the fitted estimator was.

    Attributes: ``model`` (RuleList, FallingRuleList or RuleSet over binary columns),
    ``binarizer`` (a fitted FeatureBinarizer or None), ``feature_names`` (the binary columns),
    ``classes_``, ``meta`` and ``document`` (the whole JSON document).
    """

    def __init__(self, model, binarizer, feature_names, classes, meta=None, document=None):
        self.model = model
        self.binarizer = binarizer
        self.feature_names = list(feature_names)
        self.classes_ = np.asarray(classes)
        self.meta = dict(meta or {})
        self.document = document

    @property
    def input_columns(self) -> list[str]:
        """The columns a table must have: the binarizer's inputs, or the binary columns."""
        return list(self.binarizer.columns_) if self.binarizer is not None else self.feature_names

    def check_columns(self, X) -> None:
        """``ValueError`` naming the model's input columns that the table ``X`` lacks."""
        cols = {str(c) for c in X.columns}
        missing = [c for c in self.input_columns if c not in cols]
        if missing:
            raise ValueError(f"the data lack the model's input columns {missing[:10]}"
                             + (f" (and {len(missing) - 10} more)" if len(missing) > 10 else ""))

    def binarize(self, X) -> np.ndarray:
        """The binary matrix the model reads: the stored binarizer applied to ``X``'s input
        columns (extra columns, such as the target, are ignored), or ``X``'s binary columns."""
        from .checks import check_binary_matrix
        if hasattr(X, "columns"):
            self.check_columns(X)
            X = X.set_axis([str(c) for c in X.columns], axis=1)[self.input_columns]
        if self.binarizer is not None:
            X = self.binarizer.transform(X)
        return check_binary_matrix(np.asarray(X), "binary X").astype(bool)

    def _predict01(self, Xb) -> np.ndarray:
        return np.asarray(self.model.predict(Xb), dtype=np.int64)

    def predict(self, X) -> np.ndarray:
        return self.classes_[self._predict01(self.binarize(X))]

    def predict_proba(self, X) -> np.ndarray:
        """``[P(classes_[0]), P(classes_[1])]`` as the fitted estimator's ``predict_proba``."""
        p1 = self.model.predict_proba(self.binarize(X))
        return np.column_stack([1.0 - p1, p1])

    def decision_function(self, X) -> np.ndarray:
        return self.predict_proba(X)[:, 1] - getattr(self.model, "threshold", 0.5)

    def to_text(self) -> str:
        if self.document is not None and "text" in self.document:
            return self.document["text"]
        return self.model.to_text(labels=list(self.classes_))

    def __repr__(self) -> str:
        return (f"SavedModel({type(self.model).__name__}, {len(self.feature_names)} binary "
                f"features, classes={[c for c in self.classes_.tolist()]})")
