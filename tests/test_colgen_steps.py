"""The steps after the restricted IP through their one contract (``colgen/steps.py``): each
prover's proofs never pass the brute-force optimum and each improver never worsens the rule
set, run alone on tiny instances; the clock is checked between steps (a step that overruns
leaves the later ones skipped, and the fit is reported as stopped by its limit); and a
warm-started path of increasing C never raises the objective."""
import dataclasses

import numpy as np
import pytest

from rulecert.certificate import Termination
from rulecert.estimators import BooleanRuleCGClassifier
from rulecert.mipmodels.colgen import BoundKind, solve, steps
from rulecert.models import ruleset_objective
from rulecert.problem import RuleProblem
from rulecert.reference import brute_force_ruleset


def _instance(seed, n=36, d=8, noise=0.25):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) < rng.uniform(0.35, 0.65)
    y = (X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3])
    y = (y ^ (rng.random(n) < noise)).astype(int)
    if y.sum() in (0, n):
        y[0] = 1 - y[0]
    return X, y


# each step with the options that make it apply on a solve stopped early (its gap open)
SETTINGS = {
    "dive": dict(dive=True),
    "polish": dict(polish=True, polish_kicks=20),
    "whole small class": dict(complexity_bound=5, close_gap=True),
    "gap closing": dict(close_gap=True),
    "packing": dict(),
    "error-free cover LP": dict(error_free_cover_lps=None),
    "positive side": dict(positive_side_cover_lps=None),
    "descent with the time left": dict(time_limit=60.0),
    "positive side after the descent": dict(positive_side_cover_lps=None, time_limit=60.0),
}


@pytest.mark.parametrize("name", [s.name for s in steps.STEPS])
def test_each_step_alone_keeps_the_certificate_honest(name, monkeypatch):
    """Run alone after a solve that ``max_iter`` stopped (every other step removed), a
    prover's every proof is at most the brute-force optimum, of the kind it names, and an
    improver never returns a worse rule set than the restricted IP's; the certificate's bound
    is at most the optimum and its objective is the returned rule set's."""
    step = next(s for s in steps.STEPS if s.name == name)
    proofs, objectives = [], []

    def watched(run, ip, end):
        objectives.append(ip.objective)
        for proof in step.run(run, ip, end) or ():
            proofs.append(proof)
            yield proof
        objectives.append(ip.objective)
    monkeypatch.setattr(steps, "STEPS", (dataclasses.replace(step, run=watched),))
    ran = 0
    for seed in range(5):
        X, y = _instance(seed)
        p = RuleProblem.from_matrix(X, y)
        kw = dict(complexity_bound=9, max_clause_length=3, max_iter=1, seed=seed,
                  close_gap=False, polish=False, bound_search_steps=0,
                  final_bound_nodes=1000, empty_clause=False)
        kw.update(SETTINGS[name])
        C = kw["complexity_bound"]
        _, opt = brute_force_ruleset(X, y, C, 3)
        rs, cert = solve(p, **kw)
        assert ruleset_objective(rs, p).objective == pytest.approx(cert.objective)
        assert cert.lower_bound <= opt + 1e-9 <= cert.objective + 2e-9
        for proof in proofs:
            assert isinstance(proof.kind, BoundKind) and proof.bound <= opt + 1e-9, (seed, proof)
        if objectives:
            ran += 1
            assert objectives[-1] <= objectives[0] + 1e-9     # never worse
            assert name in cert.stats["steps"]
        proofs.clear()
        objectives.clear()
    if name not in ("positive side after the descent", "error-free cover LP", "packing"):
        assert ran >= 1       # these steps apply on some of the instances


def test_a_step_that_overruns_the_limit_leaves_the_later_steps_skipped(monkeypatch):
    """A step that takes all the time left (here it waits for the solve's deadline to pass)
    is followed by no other step: each is recorded as skipped for want of time, and the
    certificate says the time limit stopped the fit, with the bound proven before it."""
    first = steps.STEPS[0]

    def slow(run, ip, end):
        while not run.end.expired():
            pass
        return None
    monkeypatch.setattr(steps, "STEPS", (dataclasses.replace(first, applies=lambda r, i: True,
                                                             run=slow),) + steps.STEPS[1:])
    X, y = _instance(3, n=60, d=10, noise=0.3)
    p = RuleProblem.from_matrix(X, y)
    rs, cert = solve(p, complexity_bound=9, max_clause_length=3, time_limit=2.0,
                     positive_side_cover_lps=None)
    later = [s.name for s in steps.STEPS[1:] if s.name in cert.stats["steps"]]
    assert later and all(cert.stats["steps"][n] == {"skipped": "no time left"} for n in later)
    if not cert.proven_optimal:
        assert cert.termination is Termination.TIME_LIMIT
    assert ruleset_objective(rs, p).objective == pytest.approx(cert.objective)


@pytest.mark.parametrize("seed", range(3))
def test_a_warm_started_path_of_increasing_C_never_raises_the_objective(seed):
    """Along a warm-started path of increasing ``C`` (each fit starts from the clauses and the
    rule set of the one before), the objective never rises, also when each fit is cut short
    by ``max_iter``; each fit's objective is its rule set's."""
    X, y = _instance(100 + seed, n=50, d=10, noise=0.3)
    for max_iter in (1, None):
        clf = BooleanRuleCGClassifier(complexity_bound=3, max_clause_length=3, warm_start=True,
                                      random_state=seed,
                                      solver_options={"max_iter": max_iter,
                                                      "pricing_deterministic_time": 2.0})
        last = np.inf
        for C in (3, 5, 7, 9, 12):
            clf.set_params(complexity_bound=C).fit(X, y)
            obj = clf.certificate_.objective
            assert obj <= last + 1e-9, (max_iter, C, obj, last)
            assert ruleset_objective(clf.ruleset_, RuleProblem.from_matrix(X, y)).objective \
                == pytest.approx(obj)
            last = obj
