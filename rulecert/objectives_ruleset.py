"""The exact objective of a Boolean rule set (Dash, Gunluk & Wei, NeurIPS 2018, eq. (1)).

DNF, Hamming loss:
    H = fn_weight * sum_{i positive} w_i [no clause holds on i]
        + sum_{i negative} w_i * #{clauses that hold on i}
i.e. false negatives plus, for each negative sample, the number of selected clauses it
satisfies.  ``w_i`` are the sample weights (1 by default).

CNF is learned as the DNF of the negated problem (De Morgan: labels and literals negated),
so its Hamming loss is the DNF loss of that problem:
    H = fn_weight * sum_{i negative} w_i [every clause holds on i]
        + sum_{i positive} w_i * #{clauses that are false on i}.

The penalized form adds ``clause_penalty * n_clauses + literal_penalty * n_literals`` (not
scaled by n).  The complexity (clauses + literals) is reported but is a constraint, not a
term, of the paper's objective.

The binary features are either a matrix ``X`` or a :class:`~rulecert.problem.RuleProblem`
whose capture rows are the binary feature columns (row ``j`` = column ``j``).
"""
from __future__ import annotations

import dataclasses

import numpy as np

from .problem import check_binary_matrix


@dataclasses.dataclass(frozen=True)
class RuleSetScore:
    false_negatives: float
    """(Weighted) samples of the learned class that no clause covers (DNF view)."""
    false_positive_hits: float
    """Sum over samples of the other class of w_i times the number of clauses covering them."""
    hamming_loss: float
    """fn_weight * false_negatives + false_positive_hits."""
    n_clauses: int
    n_literals: int
    complexity: int
    objective: float
    """hamming_loss + clause_penalty * n_clauses + literal_penalty * n_literals."""
    errors: float
    """(Weighted) misclassified samples (0-1 loss), for information."""


def ruleset_objective_xy(ruleset, X, y, sample_weight=None, *, fn_weight: float = 1.0,
                         clause_penalty: float = 0.0, literal_penalty: float = 0.0) -> RuleSetScore:
    """Exact objective of ``ruleset`` on binary features ``X`` and 0/1 labels ``y``."""
    X = check_binary_matrix(X)
    y = np.asarray(y).astype(np.int64).ravel()
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} samples but y has {y.shape[0]}")
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    V = ruleset.clause_values(X)
    if ruleset.form == "dnf":
        target = y == 1
        hits = V.sum(axis=1)
    else:  # DNF of the negated problem: target = negatives, "covered" = CNF clause false
        target = y == 0
        hits = (~V).sum(axis=1)
    fn = float(w[target & (hits == 0)].sum())
    fp = float((w[~target] * hits[~target]).sum())
    weighted = sample_weight is not None
    if not weighted:
        fn, fp = int(round(fn)), int(round(fp))
    h = fn_weight * fn + fp
    obj = h + clause_penalty * ruleset.n_clauses + literal_penalty * ruleset.n_literals
    pred = ruleset.predict(X)
    err = float(w[pred != y].sum())
    if not weighted:
        err = int(round(err))
    return RuleSetScore(fn, fp, h, ruleset.n_clauses, ruleset.n_literals, ruleset.complexity,
                        obj, err)


def ruleset_objective(ruleset, problem, *, fn_weight: float = 1.0, clause_penalty: float = 0.0,
                      literal_penalty: float = 0.0) -> RuleSetScore:
    """Exact objective of ``ruleset`` on a RuleProblem whose antecedents are binary features."""
    return ruleset_objective_xy(ruleset, problem.dense(), problem.y, problem.sample_weight,
                                fn_weight=fn_weight, clause_penalty=clause_penalty,
                                literal_penalty=literal_penalty)
