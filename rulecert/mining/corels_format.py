"""Reader and writer for the CORELS file format (``.out``, ``.label``, ``.minor``).

Each line is ``{name} b1 b2 ... bN``: a braced name then one 0/1 bit per sample, separated by
spaces.  ``.out`` holds one line per antecedent, ``.label`` two lines (label 0 then label 1,
complementary), ``.minor`` one line (the equivalent-points minority indicator).  Malformed
input raises ``ValueError`` naming the file and line.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from .. import bits
from ..problem import RuleProblem
from ..models.antecedent import Antecedent


def _parse_lines(path: Path, n_expected: int | None = None) -> tuple[list[str], np.ndarray]:
    names, rows = [], []
    with open(path, "r", encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            line = line.strip()
            if not line:
                continue
            if not line.startswith("{"):
                raise ValueError(f"{path}:{lineno}: expected a line starting with '{{name}}', "
                                 f"got {line[:40]!r}")
            close = line.find("}")
            if close < 0:
                raise ValueError(f"{path}:{lineno}: unterminated '{{' in the name")
            name = line[1:close]
            toks = line[close + 1:].split()
            if not toks:
                raise ValueError(f"{path}:{lineno}: no bits after the name {{{name}}}")
            bad = [t for t in toks if t not in ("0", "1")]
            if bad:
                raise ValueError(f"{path}:{lineno}: non-binary value {bad[0]!r} in {{{name}}}")
            n = n_expected if n_expected is not None else (len(rows[0]) if rows else None)
            if n is not None and len(toks) != n:
                raise ValueError(f"{path}:{lineno}: {{{name}}} has {len(toks)} bits, expected {n}")
            names.append(name)
            rows.append(np.frombuffer("".join(toks).encode(), dtype=np.uint8) - ord("0"))
    if not rows:
        raise ValueError(f"{path}: no data lines")
    return names, np.vstack(rows).astype(bool)


def _stem_paths(stem: str | os.PathLike) -> tuple[Path, Path, Path]:
    s = str(stem)
    for ext in (".out", ".label", ".minor"):
        if s.endswith(ext):
            s = s[: -len(ext)]
    return Path(s + ".out"), Path(s + ".label"), Path(s + ".minor")


def read_label_file(path: str | os.PathLike, n_expected: int | None = None) -> tuple[np.ndarray, str]:
    """Labels (0/1) and the positive label's name from a ``.label`` file."""
    path = Path(path)
    names, L = _parse_lines(path, n_expected)
    if len(names) == 1:
        return L[0].astype(np.int8), names[0]
    if len(names) != 2:
        raise ValueError(f"{path}: expected 1 or 2 label lines, found {len(names)}")
    if not np.array_equal(L[0], ~L[1]):
        raise ValueError(f"{path}: the two label lines are not complementary")
    return L[1].astype(np.int8), names[1]


def read_corels(stem: str | os.PathLike) -> RuleProblem:
    """Read ``stem.out`` and ``stem.label`` into a RuleProblem.

    ``stem.minor`` is not needed (rulecert computes equivalent points from the data); use
    :func:`read_minor` to compare with it.
    """
    out, lab, _ = _stem_paths(stem)
    for p in (out, lab):
        if not p.exists():
            raise FileNotFoundError(f"CORELS file not found: {p}")
    names, A = _parse_lines(out)
    y, _ = read_label_file(lab, A.shape[1])
    return RuleProblem(bits.pack(A), y, [Antecedent(nm) for nm in names])


def read_minor(path: str | os.PathLike, n_expected: int | None = None) -> np.ndarray:
    """The boolean minority indicator of a ``.minor`` file."""
    _, L = _parse_lines(Path(path), n_expected)
    return L[0]


def _line(name: str, v: np.ndarray) -> str:
    return "{" + name + "} " + " ".join("1" if b else "0" for b in v) + "\n"


def write_corels(problem: RuleProblem, stem: str | os.PathLike, label_name: str = "label",
                 minor: bool = True) -> None:
    """Write ``stem.out``, ``stem.label`` (and ``stem.minor``) for the reference CORELS."""
    out, lab, mnr = _stem_paths(stem)
    D = problem.dense()
    with open(out, "w", encoding="utf-8") as fh:
        for j, a in enumerate(problem.antecedents):
            fh.write(_line(a.name, D[:, j]))
    y = problem.y.astype(bool)
    with open(lab, "w", encoding="utf-8") as fh:
        fh.write(_line(f"{label_name}:0", ~y))
        fh.write(_line(f"{label_name}:1", y))
    if minor:
        with open(mnr, "w", encoding="utf-8") as fh:
            fh.write(_line("group_minority", bits.unpack(problem.minority, problem.n_samples)))
