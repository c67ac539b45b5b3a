"""The certificate every fit returns: why the solver stopped, what it holds, and how good it is.

Two separate statuses, as Pyomo's results and python-mip's ``OptimizationStatus``:
:class:`Termination` says *why the run stopped*, :class:`SolutionStatus` says *what we hold*.
``proven_optimal`` is true only when the proven lower bound meets the objective within the
stated absolute tolerance; a run stopped by a limit is called optimal only when its bound
already meets its objective (the bound, not luck, proved it), never because its incumbent
happens to be optimal (its gap says how far it could be).
"""
from __future__ import annotations

import dataclasses
import enum
import math
from typing import Any, Callable


class Termination(str, enum.Enum):
    """Why a solver stopped."""

    OPTIMAL = "optimal"
    """The bound meets the objective: the incumbent is proven optimal."""
    TIME_LIMIT = "time_limit"
    """The wall-clock limit (``time_limit``) was reached first."""
    NODE_LIMIT = "node_limit"
    """The deterministic node-expansion limit was reached first."""
    ITERATION_LIMIT = "iteration_limit"
    """An iteration limit (column generation rounds, Monte-Carlo iterations) was reached first."""
    MEMORY_LIMIT = "memory_limit"
    """The memory cap was reached; the search stopped cleanly before exhausting the machine."""
    INTERRUPTED = "interrupted"
    """Stopped by the user (KeyboardInterrupt or a callback returning ``True``)."""
    INFEASIBLE = "infeasible"
    """The model has no feasible solution."""
    ERROR = "error"
    """The solver failed or is missing; ``message`` holds its own words."""


class SolutionStatus(str, enum.Enum):
    """What the returned model is."""

    OPTIMAL = "optimal"
    """Proven optimal within the stated tolerance."""
    FEASIBLE = "feasible"
    """A valid model whose optimality is not proven."""
    NONE = "none"
    """No model is available."""


@dataclasses.dataclass
class Certificate:
    """Objective, proven lower bound, gap and the reason the solver stopped.

    ``objective`` and ``lower_bound`` are on the same scale (the learner's objective, for
    CORELS mistakes / n + c * rules).  ``abs_tol`` is the tolerance under which the bound is
    considered to meet the objective; it is always below the objective's granularity.
    ``history`` is a list of dicts with at least ``time``, ``objective`` and ``lower_bound``.
    """

    termination: Termination
    status: SolutionStatus
    objective: float | None
    lower_bound: float
    solver: str
    solver_version: str = ""
    abs_tol: float = 1e-9
    rel_tol: float = 0.0
    nodes: int = 0
    iterations: int = 0
    wall_time: float = 0.0
    seed: int | None = None
    warm_start_objective: float | None = None
    message: str = ""
    history: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    stats: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        self.termination = Termination(self.termination)
        self.status = SolutionStatus(self.status)
        if self.objective is not None and self.lower_bound > self.objective + self.abs_tol:
            raise ValueError(
                f"invalid certificate: lower bound {self.lower_bound!r} exceeds objective "
                f"{self.objective!r} by more than abs_tol={self.abs_tol}")
        if self.status is SolutionStatus.OPTIMAL and not self.proven_optimal:
            raise ValueError("a solution can only be called OPTIMAL when the bound meets the objective")
        if self.termination is Termination.OPTIMAL and self.status is not SolutionStatus.OPTIMAL:
            raise ValueError("termination OPTIMAL requires solution status OPTIMAL")

    @property
    def abs_gap(self) -> float:
        """objective - lower_bound (``inf`` without a solution), never negative."""
        if self.objective is None:
            return math.inf
        return max(0.0, self.objective - self.lower_bound)

    @property
    def rel_gap(self) -> float:
        """``abs_gap / |objective|`` (0 when both are 0, ``inf`` without a solution)."""
        g = self.abs_gap
        if g == 0.0:
            return 0.0
        if self.objective is None or self.objective == 0:
            return math.inf
        return g / abs(self.objective)

    @property
    def gap(self) -> float:
        """Alias of :attr:`abs_gap`."""
        return self.abs_gap

    @property
    def proven_optimal(self) -> bool:
        """True only if a solution is held and the bound meets its objective within tolerance."""
        return self.objective is not None and self.abs_gap <= self.abs_tol

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["termination"] = self.termination.value
        d["status"] = self.status.value
        d["abs_gap"] = None if self.objective is None else self.abs_gap
        d["rel_gap"] = None if self.objective is None else self.rel_gap
        d["proven_optimal"] = self.proven_optimal
        return d

    def summary(self) -> str:
        """A few human-readable lines."""
        obj = "none" if self.objective is None else f"{self.objective:.10f}"
        lines = [
            f"termination     : {self.termination.value}",
            f"solution status : {self.status.value}",
            f"objective       : {obj}",
            f"lower bound     : {self.lower_bound:.10f}",
            f"gap (abs / rel) : {self.abs_gap:.3g} / {self.rel_gap:.3%}" if self.objective is not None
            else "gap             : inf (no solution)",
            f"proven optimal  : {self.proven_optimal}",
            f"solver          : {self.solver} {self.solver_version}".rstrip(),
            f"nodes / iters   : {self.nodes} / {self.iterations}",
            f"wall time       : {self.wall_time:.3f} s",
        ]
        if self.warm_start_objective is not None:
            lines.append(f"warm start obj  : {self.warm_start_objective:.10f}")
        if self.message:
            lines.append(f"message         : {self.message}")
        return "\n".join(lines)


@dataclasses.dataclass(frozen=True)
class Solution:
    """A solver's answer: the model and its certificate.

    It unpacks and indexes as the pair ``(model, certificate)``, so ``model, cert =
    solve(...)`` reads the same for every solver; a solver that has more to return subclasses
    it with named fields (never through ``Certificate.stats``).
    """

    model: Any
    certificate: Certificate

    def __iter__(self):
        return iter((self.model, self.certificate))

    def __getitem__(self, i):
        return (self.model, self.certificate)[i]

    def __len__(self) -> int:
        return 2


def certify(objective: float | None, lower_bound: float, termination: Termination | str, *,
            solver: str, abs_tol: float = 1e-9, closed: bool = False,
            lattice: Callable[[float], float] | None = None, **fields: Any) -> Certificate:
    """The one decision of a certificate's termination and status, the same for every solver
    (the conventions of :doc:`/architecture`).

    ``termination`` is why the run stopped as the solver saw it: ``OPTIMAL`` when its search
    finished (the queue was exhausted, the solver reported optimal), else the limit or event
    that stopped it.  Two facts a solver may know beyond its bound are inputs too:

    * ``closed``: the search has shown that nothing left open can beat the incumbent (CORELS'
      closing rule: every prefix still in the queue is dominated).  The bound is then the
      objective, and the run is optimal whatever stopped it;
    * ``lattice``: rounds a valid lower bound up to the smallest achievable objective not below
      it (the rule-list MIP's objectives are ``mistakes / n + c * rules``: a bound between two
      achievable values proves the upper one).

    The rules:

    * no model (``objective is None``): status ``NONE``, termination as given;
    * a finished run whose bound does not meet its objective within ``abs_tol`` is an
      ``ERROR`` (the solver's claim is not believed; the message says so);
    * a bound that meets the objective proves optimality: status and termination ``OPTIMAL``,
      also after a limit (the bound, not luck, proved it); an ``ERROR`` or ``INFEASIBLE``
      termination is never promoted;
    * otherwise ``FEASIBLE`` under the given termination.

    A bound above the objective by at most ``abs_tol`` is clipped to the objective; further
    above it is an invalid certificate (``ValueError``).  Every other :class:`Certificate`
    field (nodes, iterations, wall_time, seed, history, message, ...) passes through.
    """
    termination = Termination(termination)
    lower = float(lower_bound)
    if lattice is not None and math.isfinite(lower):
        lower = float(lattice(lower))
    message = fields.pop("message", "")
    if objective is None:
        return Certificate(termination, SolutionStatus.NONE, None, lower, solver, abs_tol=abs_tol,
                           message=message, **fields)
    objective = float(objective)
    if closed:
        lower, termination = objective, Termination.OPTIMAL
    if lower <= objective + abs_tol:
        lower = min(lower, objective)
    proven = objective - lower <= abs_tol
    final = termination in (Termination.ERROR, Termination.INFEASIBLE)
    if termination is Termination.OPTIMAL and not proven:
        termination, status = Termination.ERROR, SolutionStatus.FEASIBLE
        message = (f"{message}; " if message else "") + (
            f"solver claimed optimal but objective {objective} exceeds bound {lower}")
    elif proven and not final:
        termination, status = Termination.OPTIMAL, SolutionStatus.OPTIMAL
    else:
        status = SolutionStatus.FEASIBLE
    return Certificate(termination, status, objective, lower, solver, abs_tol=abs_tol,
                       message=message, **fields)
