"""The options of a column-generation solve, in frozen groups, checked once when built.

:class:`ColGenOptions` holds five groups and the run's plumbing:

* :class:`ModelSpec` -- what is optimized (``C``, ``D``, the form, the weights, the penalties);
* :class:`Limits` -- when to stop (seconds, iterations, memory, restricted-IP nodes);
* :class:`PricingOptions` -- how columns are found (the chain of pricers and its budgets);
* :class:`PrimalSteps` -- the improvers after the restricted IP (dive, polish);
* :class:`CertificationSteps` -- the provers that raise the bound (the bound searches, gap
  closing, the positive-side proof, the error-free cover LP).

Every budget is named in what it counts: ``*_nodes`` branch-and-bound nodes, ``*_cover_lps``
cover LPs, ``*_seconds`` wall-clock seconds, ``*_rounds`` pricing rounds, ``*_kicks`` local
search kicks, ``*_columns`` clauses.  A budget of 0 switches its step off where the step has no
other switch.

Options are given flat, by field name: ``ColGenOptions.of(max_iter=5, beam_width=10)``,
``options.replace(...)``, ``solve(problem, max_iter=5)`` and the estimators' ``solver_options``
all go through :func:`resolve`, which names an unknown key with the nearest known ones and an
old key with its new spelling, and checks every value before any work.  An effort level
(``"fast"``, ``"default"``, ``"certify"``, :mod:`.presets`) gives the budgets a caller did not
set.  Fields whose names begin with ``_`` are private: tests set them, users do not.
"""
from __future__ import annotations

import dataclasses
import difflib
import math
from collections.abc import Mapping
from numbers import Real

import numpy as np

from ...limits import (DEFAULT_BOUND_NODE_LIMIT, DEFAULT_CLOSE_GAP_MAX_COLUMNS,
                       DEFAULT_CLOSE_GAP_NODE_LIMIT, DEFAULT_DIVE_NODE_LIMIT,
                       DEFAULT_FINAL_BOUND_NODE_LIMIT, DEFAULT_SEED, check_count_limit,
                       check_positive, check_time_limit, resolve_memory_limit_mb)
from ...models.ruleset import check_complexity_bound
from .. import highs as hx
from .master import IP_SETS
from .pricing import PRICING_MODES

TOL = 1e-7
"""Reduced-cost tolerance: a clause improves the LP when its reduced cost is below ``-TOL``."""


def _bool(value, name):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def _count(value, name, minimum=0, allow_none=True):
    if isinstance(value, bool):
        raise ValueError(f"{name} must be an integer >= {minimum}"
                         + (" or None" if allow_none else "") + f", got {value!r}")
    return check_count_limit(value, name, minimum=minimum, allow_none=allow_none)


def _number(value, name, *, low=0.0, low_open=False, high=None, high_open=True):
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(float(value)):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    v = float(value)
    if v < low or (low_open and v == low) or (high is not None and (v > high or high_open and v == high)):
        rng = f"{'>' if low_open else '>='} {low:g}" + (
            "" if high is None else f" and {'<' if high_open else '<='} {high:g}")
        raise ValueError(f"{name} must be {rng}, got {value!r}")
    return v


def _choice(value, name, allowed):
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}, got {value!r}")
    return value


class _Group:
    """A frozen group of options: its ``_check`` normalizes and refuses values when built."""

    def __post_init__(self):
        for name, value in self._check().items():
            object.__setattr__(self, name, value)

    def _check(self) -> dict:
        return {}


@dataclasses.dataclass(frozen=True)
class ModelSpec(_Group):
    """What the master IP optimizes: rule sets of complexity ``<= C`` (sum over clauses of
    ``1 + literals``) over clauses of at most ``D`` literals, minimizing the Hamming loss
    (``fn_weight`` per false negative, one per clause a negative sample satisfies) plus the
    penalties."""

    complexity_bound: float | None = 30.0
    """``C``; ``None``: the penalized form only (a penalty must then be > 0)."""
    max_clause_length: int | None = None
    """``D``: literals per clause; default ``C - 1`` (no restriction), or 10 without ``C``."""
    empty_clause: bool = True
    """Admit the empty conjunction (always true, complexity 1), as the paper's pricing problem
    (6)-(10) and AIX360 do; a column from the start, so pricing searches the non-empty clauses.
    Off: every clause has a literal and ``C >= 2``."""
    form: str = "dnf"
    """"dnf" or "cnf" (learned as the DNF of the negated features and labels)."""
    fn_weight: float = 1.0
    """Weight of a false negative relative to one clause hit on a negative sample."""
    clause_penalty: float = 0.0
    """Objective cost per clause (not scaled by n)."""
    literal_penalty: float = 0.0
    """Objective cost per literal (not scaled by n)."""

    def _check(self):
        _choice(self.form, "form", ("dnf", "cnf"))
        out = {"empty_clause": _bool(self.empty_clause, "empty_clause"),
               "fn_weight": _number(self.fn_weight, "fn_weight", low_open=True),
               "clause_penalty": _number(self.clause_penalty, "clause_penalty"),
               "literal_penalty": _number(self.literal_penalty, "literal_penalty")}
        C = self.complexity_bound
        if C is not None:
            if isinstance(C, bool) or not isinstance(C, Real) or not math.isfinite(float(C)):
                raise ValueError(f"complexity_bound C must be a finite number or None, got {C!r}")
            check_complexity_bound(C, out["empty_clause"])
            out["complexity_bound"] = C.item() if isinstance(C, np.generic) else C
        elif out["clause_penalty"] + out["literal_penalty"] <= 0:
            raise ValueError("without a complexity bound C the penalized form needs "
                             "clause_penalty or literal_penalty > 0")
        out["max_clause_length"] = _count(self.max_clause_length, "max_clause_length D", 1)
        return out


@dataclasses.dataclass(frozen=True)
class Limits(_Group):
    """When the solve stops: the whole solve's seconds, the column-generation iterations,
    the resident-memory cap and the restricted IP's nodes (``None``: no such limit)."""

    time_limit: float | None = None
    """Seconds of the whole solve (every phase; each step gets its share from the planner)."""
    max_iter: int | None = None
    """Column-generation iterations (deterministic)."""
    memory_limit_mb: float | str | None = "auto"
    """Resident-memory cap (:func:`rulecert.limits.resolve_memory_limit_mb`; "auto": the
    default cap)."""
    ip_nodes: int | None = None
    """Branch-and-bound nodes of each restricted-IP solve (deterministic)."""
    _ip_time_fraction: float = 0.25
    """Share of ``time_limit`` kept for the restricted IP and the steps after it."""
    _max_columns: int | None = None
    """Most columns the master may hold (tests)."""

    def _check(self):
        check_time_limit(self.time_limit, "time_limit", allow_zero=False)
        resolve_memory_limit_mb(self.memory_limit_mb)
        return {"max_iter": _count(self.max_iter, "max_iter"),
                "ip_nodes": _count(self.ip_nodes, "ip_nodes", 1),
                "_max_columns": _count(self._max_columns, "_max_columns"),
                "_ip_time_fraction": _number(self._ip_time_fraction, "_ip_time_fraction",
                                             high=1.0)}


@dataclasses.dataclass(frozen=True)
class PricingOptions(_Group):
    """How improving clauses are found (``pricing/``, the chain in ``pricing/chain.py``)."""

    pricers: str = "auto"
    """The chain of pricers: "auto" the greedy heuristic, the beam search, the exact
    branch-and-bound (first over short clauses, then over ``D`` literals), then CP-SAT, each
    only when the previous ones found no improving clause; "exact" CP-SAT first (the paper),
    the heuristic when CP-SAT finds nothing; "bnb" as "auto" without CP-SAT; "heuristic" the
    paper's greedy heuristic only."""
    pricing_seconds: float | None = 30.0
    """Seconds of one CP-SAT pricing call."""
    pricing_deterministic_time: float | None = None
    """CP-SAT's deterministic time per pricing call (reproducible)."""
    pricing_nodes: int | None = None
    """Nodes of one branch-and-bound pricing call (deterministic; CP-SAT takes over when it
    neither finds nor proves)."""
    columns_per_iter: int = 50
    """Most columns added per iteration."""
    beam_width: int = 5
    """Clauses kept per level by the beam search (AIX360's width), doubled when it finds
    nothing."""
    adaptive_chain: bool = False
    """Order the beam search and the short branch-and-bound by the counted work each has cost
    per improving round in this solve (``pricing/chain.py``'s ``short_first``)."""
    sample_rows: int | None = 2000
    """Randomized pricing past this many distinct samples (None: never)."""
    max_nonzeros: int | None = 100_000
    """Sample the candidate features too past this many non-zeros in the sampled pricing."""
    _found_nodes: int | None = 200_000
    """A branch-and-bound pricing call holding an improving clause returns after this many
    nodes (and a tenth as many since its first clause); None: search to the end."""
    _heuristic_max_length: int = 5
    """Literals of the greedy heuristic's and the short branch-and-bound's clauses."""
    _heuristic_max_generated: int = 20000
    """Clauses the greedy heuristic generates per call."""

    def _check(self):
        _choice(self.pricers, "pricers", PRICING_MODES)
        check_time_limit(self.pricing_seconds, "pricing_seconds", allow_zero=False)
        return {"pricing_deterministic_time": check_positive(self.pricing_deterministic_time,
                                                             "pricing_deterministic_time"),
                "pricing_nodes": _count(self.pricing_nodes, "pricing_nodes", 1),
                "columns_per_iter": _count(self.columns_per_iter, "columns_per_iter", 1, False),
                "beam_width": _count(self.beam_width, "beam_width", 1, False),
                "adaptive_chain": _bool(self.adaptive_chain, "adaptive_chain"),
                "sample_rows": _count(self.sample_rows, "sample_rows", 1),
                "max_nonzeros": _count(self.max_nonzeros, "max_nonzeros", 1),
                "_found_nodes": _count(self._found_nodes, "_found_nodes", 1),
                "_heuristic_max_length": _count(self._heuristic_max_length,
                                                "_heuristic_max_length", 1, False),
                "_heuristic_max_generated": _count(self._heuristic_max_generated,
                                                   "_heuristic_max_generated", 0, False)}


@dataclasses.dataclass(frozen=True)
class PrimalSteps(_Group):
    """The improvers: steps after the restricted IP that may return a better rule set."""

    dive: bool = False
    """Column-generation dive (``improvers/dive.py``): fix the largest fractional column, price again,
    until the LP solution is integral; then the restricted IP over its columns too."""
    dive_rounds: int = 20
    """Pricing rounds of the dive after each fixing, at most."""
    dive_nodes: int | None = DEFAULT_DIVE_NODE_LIMIT
    """Branch-and-bound pricing nodes of the whole dive; then it fixes without pricing."""
    polish: bool = True
    """Local search over literals from the restricted IP's rule set (``improvers/polish.py``)."""
    polish_kicks: int = 200
    """Random kicks of the polishing search, each followed by a descent (0: the descent)."""
    ip_options: Mapping | None = None
    """HiGHS options of the restricted IP (names to values, checked against HiGHS), e.g.
    :data:`~rulecert.mipmodels.colgen.LIGHT_IP_OPTIONS`; the options rulecert sets itself are
    refused."""
    _local_search: bool = True
    """Improve the restricted IP's greedy start by local search (``improvers/selection_search.py``)."""

    def _check(self):
        ip = self.ip_options
        ip = hx.check_options(dict(ip) if isinstance(ip, Mapping) else ip, "ip_options",
                              reserved=IP_SETS, instead=IP_OPTIONS_INSTEAD)
        return {"dive": _bool(self.dive, "dive"), "polish": _bool(self.polish, "polish"),
                "_local_search": _bool(self._local_search, "_local_search"),
                "dive_rounds": _count(self.dive_rounds, "dive_rounds", 0, False),
                "dive_nodes": _count(self.dive_nodes, "dive_nodes"),
                "polish_kicks": _count(self.polish_kicks, "polish_kicks", 0, False),
                "ip_options": ip or None}


@dataclasses.dataclass(frozen=True)
class CertificationSteps(_Group):
    """The provers: steps that raise the certified lower bound."""

    bound_search_steps: int = 3
    """Pricing calls per iteration that search the complexity dual maximising the Lagrangian
    bound (``bounds.py``); 0: the paper's bound at the LP's duals only."""
    bound_nodes: int | None = DEFAULT_BOUND_NODE_LIMIT
    """Nodes of each of those branch-and-bound calls."""
    final_bound_nodes: int | None = DEFAULT_FINAL_BOUND_NODE_LIMIT
    """Nodes in all of the descent in the complexity dual when column generation stops."""
    close_gap: bool = True
    """Gap closing: enumerate every clause that could enter a better rule set, re-solve."""
    close_gap_columns: int = DEFAULT_CLOSE_GAP_MAX_COLUMNS
    """Most clauses gap closing enumerates (one that reaches it does not close the gap)."""
    close_gap_nodes: int | None = DEFAULT_CLOSE_GAP_NODE_LIMIT
    """Branch-and-bound nodes of gap closing's enumerations in all."""
    ladder_after_cap: bool = False
    """Climb gap closing's ladder of lower thresholds also when the enumeration reached
    ``close_gap_columns``, not only when its node budget stopped it."""
    positive_side_cover_lps: int | None = 0
    """Cover LPs of the positive-side pricing proof of a solve whose gap is open (0: off)."""
    error_free_cover_lps: int | None = 0
    """Cover LPs of the error-free cover LP bound's proofs (0: off)."""
    _bound_short_length: int = 3
    """In the per-iteration bound search, clauses of at most this many literals are priced
    exactly, longer ones only down to a small negative threshold."""

    def _check(self):
        return {"bound_search_steps": _count(self.bound_search_steps, "bound_search_steps", 0,
                                             False),
                "bound_nodes": _count(self.bound_nodes, "bound_nodes"),
                "final_bound_nodes": _count(self.final_bound_nodes, "final_bound_nodes"),
                "close_gap": _bool(self.close_gap, "close_gap"),
                "close_gap_columns": _count(self.close_gap_columns, "close_gap_columns", 1,
                                            False),
                "close_gap_nodes": _count(self.close_gap_nodes, "close_gap_nodes", 1),
                "ladder_after_cap": _bool(self.ladder_after_cap, "ladder_after_cap"),
                "positive_side_cover_lps": _count(self.positive_side_cover_lps,
                                                  "positive_side_cover_lps"),
                "error_free_cover_lps": _count(self.error_free_cover_lps,
                                               "error_free_cover_lps"),
                "_bound_short_length": _count(self._bound_short_length, "_bound_short_length",
                                              1, False)}


IP_OPTIONS_INSTEAD = {"time_limit": "time_limit", "mip_max_nodes": "ip_nodes",
                      "random_seed": "seed", "threads": "workers", "output_flag": "verbose"}
"""The options to use instead of the HiGHS options the restricted IP sets itself."""

GROUPS = {"model": ModelSpec, "limits": Limits, "pricing": PricingOptions,
          "primal": PrimalSteps, "certification": CertificationSteps}
"""The groups of :class:`ColGenOptions`, by attribute name."""

PLUMBING = ("workers", "seed", "history_every")
"""The run's plumbing: fields of :class:`ColGenOptions` itself."""

GROUP_OF = {f.name: group for group, cls in GROUPS.items() for f in dataclasses.fields(cls)}
"""Every group field's group (field names are unique across the groups)."""

RENAMED = {
    "pricing": "pricers", "pricing_time_limit": "pricing_seconds",
    "bnb_node_limit": "pricing_nodes", "ip_node_limit": "ip_nodes",
    "dive_iterations": "dive_rounds", "dive_node_limit": "dive_nodes",
    "polish_iterations": "polish_kicks", "bound_node_limit": "bound_nodes",
    "final_bound_node_limit": "final_bound_nodes", "close_gap_max_columns": "close_gap_columns",
    "close_gap_node_limit": "close_gap_nodes", "close_gap_ladder_after_cap": "ladder_after_cap",
    "positive_side_node_limit": "positive_side_cover_lps",
    "error_free_lp_node_limit": "error_free_cover_lps",
    "bnb_found_node_limit": None, "heuristic_max_length": None, "heuristic_max_generated": None,
    "smoothing": None, "bound_short_length": None, "ip_time_fraction": None, "max_columns": None,
    "local_search": None, "tol": None,
}
"""Old option names: the new name, or None for an option that is no longer a setting."""

MOVED = {"initial_clauses": "solve(problem, ..., initial_clauses=...)",
         "initial_solution": "solve(problem, ..., initial_solution=...)",
         "certification_options": "effort='certify'"}
"""Old option names that are now something other than an option."""


def unknown_key(key: str, known, what: str = "option") -> ValueError:
    """The error for an unknown option ``key``: its new spelling if it was renamed, else the
    nearest known names."""
    if key in RENAMED:
        new = RENAMED[key]
        if new is None:
            return ValueError(f"{what} {key!r} is no longer a setting (the solver chooses it)")
        return ValueError(f"{what} {key!r} was renamed: use {new!r}")
    if key in MOVED:
        return ValueError(f"{what} {key!r} is no longer an option: use {MOVED[key]}")
    near = difflib.get_close_matches(key, [k for k in known if not k.startswith("_")], n=3)
    hint = f"; did you mean {' or '.join(map(repr, near))}?" if near else ""
    return ValueError(f"unknown {what} {key!r}{hint} (known: "
                      f"{', '.join(sorted(k for k in known if not k.startswith('_')))})")


@dataclasses.dataclass(frozen=True)
class ColGenOptions:
    """Options of :func:`~rulecert.mipmodels.colgen.solve`: five frozen groups and the run's
    plumbing.  Build them flat with ``ColGenOptions.of`` or :func:`resolve`; every value is checked
    when its group is built."""

    model: ModelSpec = ModelSpec()
    limits: Limits = Limits()
    pricing: PricingOptions = PricingOptions()
    primal: PrimalSteps = PrimalSteps()
    certification: CertificationSteps = CertificationSteps()
    workers: int = 1
    """Threads of the branch-and-bound searches (deterministic for a given number) and of
    CP-SAT; the HiGHS master and restricted IP run on one."""
    seed: int = DEFAULT_SEED
    history_every: float = 1.0
    """Seconds between the history's periodic samples during the restricted IP."""

    def __post_init__(self):
        for name, cls in GROUPS.items():
            if not isinstance(getattr(self, name), cls):
                raise ValueError(f"{name} must be a {cls.__name__}, got "
                                 f"{type(getattr(self, name)).__name__}")
        workers = _count(self.workers, "workers", 1, False)
        seed = _count(self.seed, "seed", 0, False)
        every = self.history_every
        if isinstance(every, bool) or not isinstance(every, Real) or not every >= 0:
            raise ValueError(f"history_every must be a number of seconds >= 0, got {every!r}")
        object.__setattr__(self, "workers", workers)
        object.__setattr__(self, "seed", seed)

    @property
    def tol(self) -> float:
        return TOL

    @classmethod
    def of(cls, **flat) -> ColGenOptions:
        """The defaults with ``flat`` options (field names of any group) set."""
        return cls().replace(**flat)

    def replace(self, **flat) -> ColGenOptions:
        """These options with ``flat`` options (field names of any group, or of the plumbing)
        set; an unknown or old name, or a bad value, raises a ValueError naming it."""
        per_group: dict[str, dict] = {}
        top = {}
        for key, value in flat.items():
            if isinstance(value, np.generic):
                value = value.item()
            if key in PLUMBING:
                top[key] = value
            elif key in GROUP_OF:
                per_group.setdefault(GROUP_OF[key], {})[key] = value
            else:
                raise unknown_key(key, list(GROUP_OF) + list(PLUMBING))
        for group, values in per_group.items():
            top[group] = dataclasses.replace(getattr(self, group), **values)
        return dataclasses.replace(self, **top)

    def flat(self) -> dict:
        """Every option by its flat name (private ones included)."""
        out = {name: getattr(self, name) for name in PLUMBING}
        for group in GROUPS:
            g = getattr(self, group)
            out.update({f.name: getattr(g, f.name) for f in dataclasses.fields(g)})
        return out


SOLVER_OPTIONS = tuple(sorted(k for k in GROUP_OF if not k.startswith("_")))
"""The keys an estimator's ``solver_options`` may hold (every public group field)."""


def resolve(effort: str = "default", rows: int | None = None, base: ColGenOptions | None = None,
            **flat) -> ColGenOptions:
    """The options of a solve: ``base`` (default: the defaults), then the budgets of the
    ``effort`` level on ``rows`` rows (:func:`~rulecert.mipmodels.colgen.effort_settings`),
    then ``flat``."""
    from .presets import effort_settings
    settings = effort_settings(effort, rows)
    return (base or ColGenOptions()).replace(**{**settings, **flat})


def check_solver_options(solver_options, reserved=()) -> dict:
    """An estimator's ``solver_options`` checked before any work: a mapping of
    :data:`SOLVER_OPTIONS` keys (not the estimator's own parameters, ``reserved``) to values;
    returns a plain dict.  Values are checked when the options are built."""
    if solver_options is None:
        return {}
    if not isinstance(solver_options, Mapping):
        raise ValueError(f"solver_options must be a dict of option names to values, got "
                         f"{type(solver_options).__name__}")
    out = {}
    for key, value in solver_options.items():
        if not isinstance(key, str):
            raise ValueError(f"solver_options: option names are strings, got {key!r}")
        if key in reserved:
            raise ValueError(f"solver_options: {key!r} is a parameter of the estimator; set it "
                             "there")
        if key not in SOLVER_OPTIONS:
            raise unknown_key(key, [k for k in SOLVER_OPTIONS if k not in reserved],
                              "solver option")
        out[key] = value
    return out


def check_problem(problem) -> None:
    """What a solve refuses in the problem itself, before any work."""
    if problem.n_antecedents == 0:
        raise ValueError("the problem has no binary features")
    problem.check_two_classes()
