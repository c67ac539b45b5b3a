"""Loaders for the real datasets used by rulecert's tests, experiments and benchmarks.

Every ``load_*`` function returns ``(X, y)``: ``X`` a pandas DataFrame of raw features (named
columns, missing cells as NaN) and ``y`` a numpy ``int8`` array of 0/1 labels.  Raw features
go through :class:`rulecert.mining.FeatureBinarizer` before mining antecedents.

Where the files are
-------------------
:func:`data_home` takes the first of these that exists:

1. the ``data_home`` argument of a loader;
2. the folder named by the environment variable ``RULECERT_DATA`` (an error, naming it, if
   that folder does not exist: a set variable is never silently passed over);
3. the nearest ``shared/data`` folder beside the current working directory or one of its
   parents: for ``d`` in ``cwd, cwd.parent, ..., /`` the first ``d/shared/data`` that holds
   at least one registered dataset folder (``compas/``, ``wdbc/``, ...).  A checkout at
   ``<root>/main`` with the data at ``<root>/shared/data`` is found from the checkout, its
   ``notebooks/`` or any folder below it, whether the package is installed editable or not;
4. the folder ``../shared/data`` beside the package's source checkout (an editable install
   run from anywhere);
5. the cache folder ``$XDG_CACHE_HOME/rulecert/data`` (``~/.cache/rulecert/data``) that
   :func:`fetch` fills.

When none exists, ``FileNotFoundError`` lists every folder looked at and says to set
``RULECERT_DATA``.  Nothing is downloaded by the loaders;
:func:`fetch` downloads a dataset's files from their public origin into the cache and checks
their md5 (the same checksums ``verify=True`` checks locally).

Registries
----------
``FILES``: file key -> :class:`DataFile` (relative path, origin URL, md5).
``DATASET_INFO``: dataset name -> :class:`DatasetInfo` (files, rows, columns, positive share as
given in the data README).  ``DATASETS``: dataset name -> loader, for experiment scripts.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import shutil
import tempfile
import urllib.request
import zipfile
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd

__all__ = [
    "DataFile", "DatasetInfo", "FILES", "DATASET_INFO", "DATASETS", "data_home", "cache_home",
    "file_path", "verify_file", "fetch", "load",
    "load_compas", "load_compas_corels", "compas_corels_stem", "load_compas_corels_problem",
    "load_bank_full", "load_bank_full_frl_labels", "load_banknote", "load_heart", "load_ilpd",
    "load_ionosphere", "load_liver", "load_pima", "load_tictactoe", "load_transfusion",
    "load_wdbc",
]

ENV_VAR = "RULECERT_DATA"


@dataclasses.dataclass(frozen=True)
class DataFile:
    """One stored file: path relative to the data home, public origin and checksum.

    ``member`` names the file inside a zip archive that the loaders read; ``md5`` is then the
    checksum of that member (the archive itself may be re-packed by its host).
    """

    path: str
    url: str
    md5: str
    member: str | None = None


@dataclasses.dataclass(frozen=True)
class DatasetInfo:
    """Shape and label facts of a dataset as documented in the data README."""

    name: str
    files: tuple[str, ...]
    n_rows: int
    n_columns: int          # columns of the raw file, label included
    positive_share: float | None
    label: str
    license: str


_UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
_CORELS = "https://raw.githubusercontent.com/corels/corels/3a57a7e7/data"

# md5 values: from the data README where it lists them, otherwise of the copy in
# /work/shared/data (marked "local").
FILES: dict[str, DataFile] = {
    "compas_propublica": DataFile(
        "compas/compas-scores-two-years.csv",
        "https://raw.githubusercontent.com/propublica/compas-analysis/bafff5da/"
        "compas-scores-two-years.csv",
        "9165d40c400bba93a8cffece2b74622b"),
    "compas_train.out": DataFile("compas/corels_binarized/compas_train.out",
                                 f"{_CORELS}/compas_train.out", "ff3c2cca78019bc8b9774e67dbbd446f"),
    "compas_train.label": DataFile("compas/corels_binarized/compas_train.label",
                                   f"{_CORELS}/compas_train.label",
                                   "7925fdf6e0a57ae13160c4fb445b7565"),
    "compas_train.minor": DataFile("compas/corels_binarized/compas_train.minor",
                                   f"{_CORELS}/compas_train.minor",
                                   "7c55b113454e5c2a0b7f9b808930fd4d"),  # local
    "compas_test.out": DataFile("compas/corels_binarized/compas_test.out",
                                f"{_CORELS}/compas_test.out",
                                "b9c036cf74e036f8757b86eb867296a1"),  # local
    "compas_test.label": DataFile("compas/corels_binarized/compas_test.label",
                                  f"{_CORELS}/compas_test.label",
                                  "830367ccb3343430fd62d86b392cb3af"),  # local
    "compas_train.csv": DataFile("compas/corels_binarized/compas_train.csv",
                                 f"{_CORELS}/compas_train.csv",
                                 "bdfddb208fb0a3e10e24a614b14975ee"),  # local
    "compas_test.csv": DataFile("compas/corels_binarized/compas_test.csv",
                                f"{_CORELS}/compas_test.csv",
                                "1578dea17c146fb51b524824b7acc8e1"),  # local
    "compas_train-binary.csv": DataFile("compas/corels_binarized/compas_train-binary.csv",
                                        f"{_CORELS}/compas_train-binary.csv",
                                        "3ae4f438420b1cb09594a050ae5c6c59"),  # local
    "compas_test-binary.csv": DataFile("compas/corels_binarized/compas_test-binary.csv",
                                       f"{_CORELS}/compas_test-binary.csv",
                                       "164ee592fca6a710d58ef38d5db5e198"),  # local
    "bank_full": DataFile("bank_marketing/bank.zip", f"{_UCI}/00222/bank.zip",
                          "e6b0ca77f3f200ec5428e04dd104da53", member="bank-full.csv"),
    "bank_full_frl_labels": DataFile(
        "bank_marketing/frl_bank-full_all.Y",
        "https://raw.githubusercontent.com/cfchen-duke/FRLOptimization/ff925ce1/datasets/"
        "bank-full/all/bank-full_all.Y",
        "817f468f0a147b3bfd2037d6cbdf2667"),
    "banknote": DataFile("banknote/data_banknote_authentication.txt",
                         f"{_UCI}/00267/data_banknote_authentication.txt",
                         "3f64e2b50525a2f36dcd947eaf7bac8a"),
    "heart": DataFile("heart_cleveland/processed.cleveland.data",
                      f"{_UCI}/heart-disease/processed.cleveland.data",
                      "2d91a8ff69cfd9616aa47b59d6f843db"),
    "ilpd": DataFile("ilpd/ILPD.csv",
                     f"{_UCI}/00225/Indian%20Liver%20Patient%20Dataset%20(ILPD).csv",
                     "2ff17efe515f04bac60036c23c4ea3dd"),
    "ionosphere": DataFile("ionosphere/ionosphere.data", f"{_UCI}/ionosphere/ionosphere.data",
                           "85649e5fb5b15fb9dab726c400be61fe"),
    "liver": DataFile("liver_bupa/bupa.data", f"{_UCI}/liver-disorders/bupa.data",
                      "8743b8ffa79962088a5ff4f2f3a37509"),
    # The classic 768-row Pima file is no longer served by UCI; this widely used mirror is
    # expected to be byte-identical (fetch refuses it if the md5 differs).
    "pima": DataFile("pima/pima-indians-diabetes.data",
                     "https://raw.githubusercontent.com/jbrownlee/Datasets/master/"
                     "pima-indians-diabetes.data.csv",
                     "56a8d8ae619fcc223941e54f361b8406"),
    "tictactoe": DataFile("tic-tac-toe/tic-tac-toe.data", f"{_UCI}/tic-tac-toe/tic-tac-toe.data",
                          "94ad0bb3bc7f39a2fd101ef86d173b65"),
    "transfusion": DataFile("transfusion/transfusion.data",
                            f"{_UCI}/blood-transfusion/transfusion.data",
                            "7e5c76b07803fe95f6e7a86b55b5ac22"),
    "wdbc": DataFile("wdbc/wdbc.data", f"{_UCI}/breast-cancer-wisconsin/wdbc.data",
                     "c6dd5a2909808f3a901cf00cfd8dfff0"),
}

_CC = "CC BY 4.0"
DATASET_INFO: dict[str, DatasetInfo] = {
    "compas": DatasetInfo("compas", ("compas_propublica",), 7214, 53, 0.4507,
                          "two_year_recid == 1", "ProPublica compas-analysis (no license file)"),
    "compas_corels": DatasetInfo(
        "compas_corels", ("compas_train.csv", "compas_test.csv", "compas_train-binary.csv",
                          "compas_test-binary.csv"),
        6489, 8, 0.4478, "recidivate-within-two-years == 1 (train split)", "GPL-3.0"),
    "bank_full": DatasetInfo("bank_full", ("bank_full",), 45211, 17, 0.1170, "y == 'yes'", _CC),
    "banknote": DatasetInfo("banknote", ("banknote",), 1372, 5, 0.4446, "class == 1", _CC),
    "heart": DatasetInfo("heart", ("heart",), 303, 14, 0.4587, "num > 0", _CC),
    "ilpd": DatasetInfo("ilpd", ("ilpd",), 583, 11, 0.7136, "selector == 1", _CC),
    "ionosphere": DatasetInfo("ionosphere", ("ionosphere",), 351, 35, 0.6410, "class == 'g'", _CC),
    "liver": DatasetInfo("liver", ("liver",), 345, 7, 0.5101, "drinks >= 3", _CC),
    "pima": DatasetInfo("pima", ("pima",), 768, 9, 0.3490, "class == 1",
                        "classic UCI (no longer distributed by UCI)"),
    "tictactoe": DatasetInfo("tictactoe", ("tictactoe",), 958, 10, 0.6534, "class == 'positive'",
                             _CC),
    "transfusion": DatasetInfo("transfusion", ("transfusion",), 748, 5, 0.2380,
                               "donated in March 2007 == 1", _CC),
    "wdbc": DatasetInfo("wdbc", ("wdbc",), 569, 32, 0.3726, "diagnosis == 'M'", _CC),
}


# ---- locations ----------------------------------------------------------------------------
def cache_home() -> Path:
    """Folder :func:`fetch` downloads into (``$XDG_CACHE_HOME/rulecert/data``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "rulecert" / "data"


def _checkout_data() -> Path:
    # rulecert/datasets.py -> <repo>/rulecert -> <repo> ; data lives in <repo>/../shared/data
    return Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def _cwd_candidates() -> list[Path]:
    """``d/shared/data`` for ``d`` in the working directory and each of its parents, nearest
    first (``cwd/../shared/data`` is the second entry: the data beside a checkout run from
    inside it)."""
    try:
        cwd = Path.cwd().resolve()
    except OSError:         # the working directory was removed: nothing to search from
        return []
    return [d / "shared" / "data" for d in (cwd, *cwd.parents)]


def _holds_datasets(p: Path) -> bool:
    """True when ``p`` is a folder holding at least one registered dataset's folder."""
    if not p.is_dir():
        return False
    tops = {f.path.split("/", 1)[0] for f in FILES.values()}
    return any((p / t).is_dir() for t in tops)


def data_home(data_home: str | os.PathLike | None = None) -> Path:
    """The folder holding the datasets (see the module docstring for the search order).

    Raises ``FileNotFoundError`` listing every folder looked at and telling the user to set
    ``RULECERT_DATA`` when no candidate exists.
    """
    if data_home is not None:
        p = Path(data_home).expanduser()
        if not p.is_dir():
            raise FileNotFoundError(f"data_home {str(p)!r} is not a directory")
        return p
    env = os.environ.get(ENV_VAR)
    if env:
        p = Path(env).expanduser()
        if not p.is_dir():
            raise FileNotFoundError(f"{ENV_VAR}={env!r} is not a directory; point it to the "
                                    "folder holding the rulecert datasets (or unset it to "
                                    "search for shared/data from the working directory)")
        return p
    looked: list[Path] = []
    for p in (*_cwd_candidates(), _checkout_data()):
        if p in looked:
            continue
        looked.append(p)
        if _holds_datasets(p):
            return p
    cache = cache_home()
    looked.append(cache)
    if cache.is_dir():
        return cache
    where = "\n".join(f"  {p}" for p in looked)
    raise FileNotFoundError(
        f"rulecert datasets not found: {ENV_VAR} is not set and no folder holding them was "
        f"found; looked in (shared/data beside the working directory and its parents, beside "
        f"the package source, then the download cache):\n{where}\n"
        f"Set the environment variable {ENV_VAR} to the folder holding them, or download "
        "them with rulecert.datasets.fetch(name)")


def _md5(data_or_path) -> str:
    h = hashlib.md5()
    if isinstance(data_or_path, (bytes, bytearray)):
        h.update(data_or_path)
    else:
        with open(data_or_path, "rb") as fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    return h.hexdigest()


def file_path(key: str, home: str | os.PathLike | None = None) -> Path:
    """Path of the registered file ``key`` (``FileNotFoundError`` with advice if absent)."""
    if key not in FILES:
        raise KeyError(f"unknown data file {key!r}; known: {sorted(FILES)}")
    home = data_home(home)
    p = home / FILES[key].path
    if not p.is_file():
        raise FileNotFoundError(
            f"{FILES[key].path} not found in {str(home)!r}; set {ENV_VAR} to the folder "
            f"holding the rulecert datasets or download it from {FILES[key].url} "
            "(rulecert.datasets.fetch does this)")
    return p


def _read_member(key: str, path: Path) -> bytes:
    member = FILES[key].member
    with zipfile.ZipFile(path) as zf:
        try:
            return zf.read(member)
        except KeyError:
            raise ValueError(f"{path}: archive has no member {member!r}") from None


def verify_file(key: str, home: str | os.PathLike | None = None) -> Path:
    """Check the md5 of a registered file (of its zip member if any); return its path."""
    p = file_path(key, home)
    info = FILES[key]
    got = _md5(_read_member(key, p)) if info.member else _md5(p)
    if got != info.md5:
        what = f"{p} [{info.member}]" if info.member else str(p)
        raise ValueError(f"md5 mismatch for {what}: expected {info.md5}, got {got}")
    return p


def _open(key: str, home, verify: bool) -> Path:
    return verify_file(key, home) if verify else file_path(key, home)


def fetch(name: str, home: str | os.PathLike | None = None, *, overwrite: bool = False,
          timeout: float = 60.0) -> Path:
    """Download the files of dataset (or file key) ``name`` from their public origin.

    Files go to ``home`` (default :func:`cache_home`) under their registered relative
    paths, each checked against its md5 before it is moved into place.  Returns the folder.
    This is the only function of the module that uses the network.
    """
    if name in DATASET_INFO:
        keys = list(DATASET_INFO[name].files)
        if name == "bank_full":
            keys.append("bank_full_frl_labels")
        if name == "compas_corels":
            keys += [k for k in FILES if k.startswith("compas_t") and k not in keys]
    elif name in FILES:
        keys = [name]
    else:
        raise KeyError(f"unknown dataset {name!r}; known: {sorted(DATASET_INFO)}")
    home = Path(home).expanduser() if home is not None else cache_home()
    for key in keys:
        info = FILES[key]
        dest = home / info.path
        if dest.is_file() and not overwrite:
            continue
        with urllib.request.urlopen(info.url, timeout=timeout) as resp:
            data = resp.read()
        if info.member:
            with zipfile.ZipFile(io.BytesIO(data)) as zf:
                got = _md5(zf.read(info.member))
        else:
            got = _md5(data)
        if got != info.md5:
            raise ValueError(f"downloaded {info.url} has md5 {got}, expected {info.md5}; "
                             "not saved")
        dest.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=dest.parent, delete=False) as tmp:
            tmp.write(data)
        shutil.move(tmp.name, dest)
    return home


def _labels(mask) -> np.ndarray:
    return np.asarray(mask, dtype=np.int8)


# ---- COMPAS -------------------------------------------------------------------------------
COMPAS_FEATURES = ["sex", "age", "juv_fel_count", "juv_misd_count", "juv_other_count",
                   "priors_count", "c_charge_degree"]


def load_compas(*, features: list[str] | None = None, propublica_filter: bool = False,
                data_home=None, verify: bool = False):
    """ProPublica's ``compas-scores-two-years.csv``: target ``two_year_recid``.

    The default features are those the CORELS papers binarize (sex, age, juvenile felony /
    misdemeanor / other counts, prior count, charge degree); race, the COMPAS scores and all
    outcome-related columns are left out (pass ``features=`` to choose others).
    ``propublica_filter=True`` applies ProPublica's row filter (charge within 30 days of the
    screening, ``is_recid != -1``, ``c_charge_degree != 'O'``, ``score_text != 'N/A'``),
    which leaves 6,172 rows.
    """
    df = pd.read_csv(_open("compas_propublica", data_home, verify))
    if propublica_filter:
        keep = (df["days_b_screening_arrest"].between(-30, 30) & (df["is_recid"] != -1)
                & (df["c_charge_degree"] != "O") & (df["score_text"] != "N/A"))
        df = df[keep].reset_index(drop=True)
    cols = COMPAS_FEATURES if features is None else list(features)
    bad = [c for c in cols if c not in df.columns or c == "two_year_recid"]
    if bad:
        raise ValueError(f"unknown or target COMPAS columns: {bad}")
    return df[cols].copy(), _labels(df["two_year_recid"] == 1)


def compas_corels_stem(split: str = "train", data_home=None) -> Path:
    """Path stem of CORELS' ``compas_{split}.out`` / ``.label`` (for ``read_corels``)."""
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    p = file_path(f"compas_{split}.out", data_home)
    file_path(f"compas_{split}.label", data_home)
    return p.with_suffix("")


def load_compas_corels_problem(split: str = "train", data_home=None, verify: bool = False):
    """CORELS' own antecedent file for COMPAS as a :class:`~rulecert.problem.RuleProblem`."""
    from .mining.corels_format import read_corels
    if verify:
        verify_file(f"compas_{split}.out", data_home)
        verify_file(f"compas_{split}.label", data_home)
    return read_corels(compas_corels_stem(split, data_home))


def load_compas_corels(split: str = "train", kind: str = "categorical", *, data_home=None,
                       verify: bool = False):
    """CORELS' binarized COMPAS split (6,489 train / 721 test rows).

    ``kind="categorical"``: the 7 categorical columns of ``compas_{split}.csv`` (values such
    as ``18-20``, ``=0``, ``>3``); ``kind="binary"``: the 14 one-hot 0/1 columns of
    ``compas_{split}-binary.csv`` (uint8).  The target is the last column
    (``recidivate-within-two-years``).
    """
    if split not in ("train", "test"):
        raise ValueError(f"split must be 'train' or 'test', got {split!r}")
    if kind not in ("categorical", "binary"):
        raise ValueError(f"kind must be 'categorical' or 'binary', got {kind!r}")
    key = f"compas_{split}.csv" if kind == "categorical" else f"compas_{split}-binary.csv"
    df = pd.read_csv(_open(key, data_home, verify), dtype=str if kind == "categorical" else None)
    target = df.columns[-1]
    X = df.drop(columns=[target])
    if kind == "binary":
        X = X.astype(np.uint8)
    return X, _labels(df[target].astype(int) == 1)


# ---- UCI and others ------------------------------------------------------------------------
def load_bank_full(*, data_home=None, verify: bool = False):
    """UCI Bank Marketing ``bank-full.csv`` (read from ``bank.zip``; ``;``-separated).

    16 raw features (numeric and categorical, ``unknown`` kept as a category); target
    ``y == 'yes'``.
    """
    p = _open("bank_full", data_home, verify)
    df = pd.read_csv(io.BytesIO(_read_member("bank_full", p)), sep=";")
    return df.drop(columns=["y"]), _labels(df["y"] == "yes")


BANK_FULL_TABLE1 = [("poutcome=success", "default=no"), ("60<=age<100", "default=no"),
          ("17<=age<30", "housing=no"), ("previous>=2", "housing=no"),
          ("campaign=1", "housing=no"), ("previous>=2", "education=tertiary")]
"""Chen & Rudin's Table 1 falling rule list on bank-full: each rule a pair of literals of
:func:`bank_full_literals`."""
BANK_FULL_TABLE1_OBJECTIVE = 0.560290
"""The objective (w = 7, C = 1e-6) Chen & Rudin report for their Table 1 list."""


def bank_full_literals(df: pd.DataFrame) -> pd.DataFrame:
    """The 63 binary literals of bank-full used in Chen & Rudin's study (chosen to contain the
    predicates of their Table 1): age bands, one literal per category of the categorical columns,
    balance / day / campaign / pdays / previous bands; ``duration`` is left out (it is only
    known after the call).  ``df`` is the feature frame of :func:`load_bank_full`."""
    cols = {}

    def add(name, mask):
        cols[name] = np.asarray(mask, dtype=np.uint8)

    add("17<=age<30", (df.age >= 17) & (df.age < 30))
    add("30<=age<60", (df.age >= 30) & (df.age < 60))
    add("60<=age<100", (df.age >= 60) & (df.age < 100))
    for c in ["job", "marital", "education", "default", "housing", "loan", "contact", "month",
              "poutcome"]:
        for v in sorted(df[c].astype(str).unique()):
            add(f"{c}={v}", df[c].astype(str) == v)
    add("balance<0", df.balance < 0)
    add("0<=balance<500", (df.balance >= 0) & (df.balance < 500))
    add("500<=balance<2000", (df.balance >= 500) & (df.balance < 2000))
    add("balance>=2000", df.balance >= 2000)
    add("day<=10", df.day <= 10)
    add("11<=day<=20", (df.day >= 11) & (df.day <= 20))
    add("day>=21", df.day >= 21)
    add("campaign=1", df.campaign == 1)
    add("campaign=2", df.campaign == 2)
    add("campaign>=3", df.campaign >= 3)
    add("pdays=-1", df.pdays == -1)
    add("0<=pdays<200", (df.pdays >= 0) & (df.pdays < 200))
    add("pdays>=200", df.pdays >= 200)
    add("previous=0", df.previous == 0)
    add("previous=1", df.previous == 1)
    add("previous>=2", df.previous >= 2)
    return pd.DataFrame(cols)


def load_bank_full_frl_labels(*, data_home=None, verify: bool = False) -> np.ndarray:
    """The 0/1 labels of bank-full from Chen & Rudin's FRLOptimization repository."""
    y = np.loadtxt(_open("bank_full_frl_labels", data_home, verify), dtype=np.int64)
    if not np.isin(y, (0, 1)).all():
        raise ValueError("frl_bank-full_all.Y holds values other than 0/1")
    return y.astype(np.int8)


def load_banknote(*, data_home=None, verify: bool = False):
    """UCI banknote authentication (4 wavelet features; target class 1)."""
    cols = ["variance", "skewness", "curtosis", "entropy", "class"]
    df = pd.read_csv(_open("banknote", data_home, verify), header=None, names=cols)
    return df[cols[:-1]], _labels(df["class"] == 1)


HEART_COLUMNS = ["age", "sex", "cp", "trestbps", "chol", "fbs", "restecg", "thalach", "exang",
                 "oldpeak", "slope", "ca", "thal", "num"]
#: heart columns that are codes rather than quantities (pass to FeatureBinarizer(categorical=))
HEART_CATEGORICAL = ["cp", "restecg", "slope", "thal"]


def load_heart(*, data_home=None, verify: bool = False):
    """UCI Heart Disease, Cleveland (``processed.cleveland.data``).

    13 numeric features (``?`` -> NaN: 4 cells in ``ca``, 2 in ``thal``); target ``num > 0``.
    ``HEART_CATEGORICAL`` lists the coded columns.
    """
    df = pd.read_csv(_open("heart", data_home, verify), header=None, names=HEART_COLUMNS,
                     na_values="?")
    return df[HEART_COLUMNS[:-1]], _labels(df["num"] > 0)


def load_ilpd(*, data_home=None, verify: bool = False):
    """UCI Indian Liver Patient Dataset; target ``selector == 1`` (liver patient).

    ``ag_ratio`` has 4 missing cells (NaN).
    """
    cols = ["age", "gender", "tot_bilirubin", "direct_bilirubin", "alkphos", "sgpt", "sgot",
            "tot_proteins", "albumin", "ag_ratio", "selector"]
    df = pd.read_csv(_open("ilpd", data_home, verify), header=None, names=cols)
    return df[cols[:-1]], _labels(df["selector"] == 1)


def load_ionosphere(*, data_home=None, verify: bool = False):
    """UCI Ionosphere (34 numeric features ``a01..a34``; ``a02`` is constant 0); target ``g``."""
    cols = [f"a{j:02d}" for j in range(1, 35)] + ["class"]
    df = pd.read_csv(_open("ionosphere", data_home, verify), header=None, names=cols)
    return df[cols[:-1]], _labels(df["class"] == "g")


def load_liver(target: str = "drinks", *, data_home=None, verify: bool = False):
    """UCI BUPA liver disorders.

    The file has no class column in the usual sense (McDermott & Forsyth 2016):
    ``target="drinks"`` (default) predicts ``drinks >= 3`` from the 5 blood tests (176
    positives; the reading that matches the rule-learning papers' accuracy levels; the
    ``selector`` split marker is dropped).  ``target="selector"`` is the other common reading:
    ``selector == 1`` (145 positives) from the 5 blood tests and ``drinks``.
    """
    cols = ["mcv", "alkphos", "sgpt", "sgot", "gammagt", "drinks", "selector"]
    df = pd.read_csv(_open("liver", data_home, verify), header=None, names=cols)
    if target == "drinks":
        return df[cols[:5]], _labels(df["drinks"] >= 3)
    if target == "selector":
        return df[cols[:6]], _labels(df["selector"] == 1)
    raise ValueError(f"target must be 'drinks' or 'selector', got {target!r}")


PIMA_COLUMNS = ["pregnancies", "glucose", "blood_pressure", "skin_thickness", "insulin", "bmi",
                "diabetes_pedigree", "age"]
#: Pima columns where 0 stands for a missing measurement
PIMA_ZERO_MISSING = ["glucose", "blood_pressure", "skin_thickness", "insulin", "bmi"]


def load_pima(*, zeros_as_missing: bool = False, data_home=None, verify: bool = False):
    """Pima Indians diabetes (768 rows); target class 1.

    ``zeros_as_missing=True`` turns the zeros of ``PIMA_ZERO_MISSING`` into NaN (they are
    impossible measurements); by default the file is returned as published.
    """
    df = pd.read_csv(_open("pima", data_home, verify), header=None,
                     names=PIMA_COLUMNS + ["class"])
    X = df[PIMA_COLUMNS].copy()
    if zeros_as_missing:
        X = X.astype({c: float for c in PIMA_ZERO_MISSING})
        for c in PIMA_ZERO_MISSING:
            X.loc[X[c] == 0, c] = np.nan
    return X, _labels(df["class"] == 1)


def load_tictactoe(*, data_home=None, verify: bool = False):
    """UCI Tic-Tac-Toe endgame: 9 categorical squares (x/o/b); target ``positive`` (x wins)."""
    cols = [f"{r}_{c}" for r in ("top", "middle", "bottom") for c in ("left", "middle", "right")]
    df = pd.read_csv(_open("tictactoe", data_home, verify), header=None, names=cols + ["class"],
                     dtype=str)
    return df[cols], _labels(df["class"] == "positive")


def load_transfusion(*, data_home=None, verify: bool = False):
    """UCI Blood Transfusion Service Center; target: donated in March 2007."""
    df = pd.read_csv(_open("transfusion", data_home, verify), skipinitialspace=True)
    if df.shape[1] != 5:
        raise ValueError(f"transfusion.data: expected 5 columns, found {df.shape[1]}")
    df.columns = ["recency", "frequency", "monetary", "time", "donated"]
    df = df.apply(pd.to_numeric)
    return df[["recency", "frequency", "monetary", "time"]], _labels(df["donated"] == 1)


_WDBC_STATS = ["radius", "texture", "perimeter", "area", "smoothness", "compactness",
               "concavity", "concave points", "symmetry", "fractal dimension"]
#: scikit-learn's load_breast_cancer feature names, in file order
WDBC_FEATURES = ([f"mean {s}" for s in _WDBC_STATS] + [f"{s} error" for s in _WDBC_STATS]
                 + [f"worst {s}" for s in _WDBC_STATS])


def load_wdbc(*, data_home=None, verify: bool = False):
    """UCI Breast Cancer Wisconsin (Diagnostic): 30 features; target ``M`` (malignant)."""
    df = pd.read_csv(_open("wdbc", data_home, verify), header=None,
                     names=["id", "diagnosis"] + WDBC_FEATURES)
    return df[WDBC_FEATURES], _labels(df["diagnosis"] == "M")


DATASETS: dict[str, Callable] = {
    "compas": load_compas,
    "compas_corels": load_compas_corels,
    "bank_full": load_bank_full,
    "banknote": load_banknote,
    "heart": load_heart,
    "ilpd": load_ilpd,
    "ionosphere": load_ionosphere,
    "liver": load_liver,
    "pima": load_pima,
    "tictactoe": load_tictactoe,
    "transfusion": load_transfusion,
    "wdbc": load_wdbc,
}


def load(name: str, **kwargs):
    """``DATASETS[name](**kwargs)`` with a clear error for unknown names."""
    try:
        loader = DATASETS[name]
    except KeyError:
        raise KeyError(f"unknown dataset {name!r}; known: {sorted(DATASETS)}") from None
    return loader(**kwargs)
