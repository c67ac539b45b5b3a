"""The CORELS bounds (Angelino et al., JMLR 2018, sections 3-4), one small function each.

Every function here works on the *scaled* objective: ``N * R(d) = mistakes + C * K`` with
``C = c * N`` (``N`` samples, ``K`` rules before the default).  Mistakes are integers, so two
permutations of one antecedent set are compared exactly on integer mistakes; everything that
involves ``C`` is compared with the tolerance :data:`TOL` (in mistakes), always in the
direction that prunes *less* or treats an exact tie as "not strictly better":

* a subtree is pruned when its lower bound ``lb >= R - TOL`` (``R`` = incumbent, scaled):
  it cannot hold a list whose objective is smaller than the incumbent's by more than
  ``TOL / N`` (float rounding on this scale is ~1e-12).  The certificate's ``abs_tol`` (1e-9 on
  the objective scale) covers this, and for any ``c`` given with at most 8 decimals two distinct
  objective values differ by far more than ``TOL / N``.
* a support bound rejects an antecedent only when its (accurate) support is below
  ``C - TOL`` (Theorems 10, 11 allow rejecting anything strictly below ``C``).

The functions are numba ``njit`` functions (defined in :mod:`.kernel`, re-exported here): the
branch-and-bound kernel calls exactly these, and the tests call them from Python against brute
force.
"""
from __future__ import annotations

import dataclasses

import numpy as np

from ... import bits
# The bound functions are defined in .kernel, next to the search loop that inlines them (numba's
# on-disk cache only tracks the file of the cached function), and re-exported here.
from .kernel import (TOL, accurate_support_prunes, default_mistakes,  # noqa: F401
                     equivalent_support_verdict,
                     hierarchical_lower_bound, lookahead_prunes, max_prefix_length,
                     permutation_dominated, prefix_length_prunes_children, rule_correct,
                     subtree_prunes, support_prunes)

__all__ = ["TOL", "CorelsBounds", "rule_correct", "default_mistakes", "support_prunes",
           "accurate_support_prunes", "hierarchical_lower_bound", "subtree_prunes",
           "lookahead_prunes", "permutation_dominated", "equivalent_support_verdict", "max_prefix_length",
           "prefix_length_prunes_children", "child_counts_reference", "prefix_stats_reference"]


@dataclasses.dataclass(frozen=True)
class CorelsBounds:
    """Which CORELS bounds the search uses (all on by default).

    Turning a bound off never changes the certified optimum, only the work (JMLR Tables 4-5).
    The lower-bound tests nest: with ``lookahead`` or ``equivalent_points`` on, switching
    ``hierarchical`` off changes nothing (both imply it); with all three off, no prefix is
    pruned by its lower bound at all.  ``prefix_length``'s one-step part coincides with the
    lookahead on ``b(d_p)``, so it matters when ``lookahead`` is off.

    hierarchical
        Theorem 1: prune a prefix whose lower bound ``b(d_p)`` (plus the equivalent points
        bound when on) reaches the incumbent objective.
    lookahead
        Lemma 2: prune a prefix's extensions when ``b(d_p) + c`` reaches the incumbent; with it
        the gain bound (module doc of :mod:`rulecert.search.corels.rashomon`), a lookahead
        that also counts what the rules after the prefix can fix at most.
    support
        Theorem 10: every rule of an optimal list captures at least a fraction ``c``.
    accurate_support
        Theorem 11: every rule of an optimal list classifies correctly at least a fraction ``c``.
    equivalent_points
        Theorem 20: samples with identical antecedent vectors and opposite labels; the minority
        of each group not yet captured is a lower bound on the default rule's mistakes.
    permutation
        Theorem 15 (equivalent support, which includes Corollary 16 on permutations) through the
        symmetry-aware map: of all prefixes that capture the same samples only the one with the
        smallest ``b(d_p)`` is kept (under a binding ``max_length`` only when it is no longer).
    prefix_length
        Theorem 4 (global cap ``floor(R^c / c)`` on the length of any list as good as the
        incumbent) and Theorem 6 (per-prefix cap: children only when ``b(d_p) + c`` is below
        the incumbent).
    """

    hierarchical: bool = True
    lookahead: bool = True
    support: bool = True
    accurate_support: bool = True
    equivalent_points: bool = True
    permutation: bool = True
    prefix_length: bool = True

    def __post_init__(self):
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if not isinstance(v, (bool, np.bool_)):
                raise ValueError(f"CorelsBounds.{f.name} must be True or False, got {v!r}")

    @classmethod
    def none(cls) -> "CorelsBounds":
        """Every bound off (plain branch and bound over all prefixes)."""
        return cls(**{f.name: False for f in dataclasses.fields(cls)})

    def replace(self, **changes) -> "CorelsBounds":
        return dataclasses.replace(self, **changes)

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


# ---- reference (numpy) evaluation of all children of a prefix ---------------------------------
def child_counts_reference(problem, prefix):
    """Counts for every antecedent appended to ``prefix``, on packed sample bits (numpy).

    Returns a dict of int64 arrays over all M antecedents: ``pos``, ``neg``, ``minority`` (samples
    newly captured, by label, and equivalent-points minority samples among them), and scalars
    ``pos_u``, ``neg_u``, ``min_u`` for the samples the prefix leaves uncaptured.  This is the
    reference the numba kernel is tested against (Algorithm 5's bit-vector operations).
    """
    u = problem.all.copy()
    for a in prefix:
        u &= ~problem.captures[int(a)]
    lab = problem.labels
    z = problem.minority
    V = problem.captures & u[None, :]
    pos = np.bitwise_count(V & lab[None, :]).sum(axis=1, dtype=np.int64)
    tot = np.bitwise_count(V).sum(axis=1, dtype=np.int64)
    mnr = np.bitwise_count(V & z[None, :]).sum(axis=1, dtype=np.int64)
    return {"pos": pos, "neg": tot - pos, "minority": mnr,
            "pos_u": bits.count(u & lab), "neg_u": bits.count(u) - bits.count(u & lab),
            "min_u": bits.count(u & z)}


def prefix_stats_reference(problem, prefix):
    """(prefix mistakes, default mistakes, equivalent-points minority left uncaptured) of a prefix,
    computed directly on sample bits."""
    u = problem.all.copy()
    m = 0
    for a in prefix:
        v = problem.captures[int(a)] & u
        p = bits.count(v & problem.labels)
        n = bits.count(v) - p
        m += n if p >= n else p
        u &= ~problem.captures[int(a)]
    p = bits.count(u & problem.labels)
    n = bits.count(u) - p
    return m, (n if p >= n else p), bits.count(u & problem.minority)
