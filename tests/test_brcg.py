"""BooleanRuleCGClassifier: scikit-learn API, readable rules, certificate, CLI subcommand."""
import argparse
import json
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.pipeline import make_pipeline

from rulecert.estimators.brcg import BooleanRuleCGClassifier
from rulecert.mining import FeatureBinarizer
from rulecert.models.ruleset import ruleset_objective_xy
from rulecert.reference import brute_force_ruleset


def _small(**kw):
    base = dict(complexity_bound=10, max_clause_length=2, max_iter=5, bnb_node_limit=20000,
                pricing_deterministic_time=1.0, close_gap=False, random_state=0)
    base.update(kw)
    return BooleanRuleCGClassifier(**base)


def _binary_frame(seed=0, n=150):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.integers(0, 2, size=(n, 5)),
                     columns=["smoker", "old", "male", "rich", "sporty"])
    sick = ((X["smoker"] == 1) & (X["old"] == 1)) | ((X["male"] == 1) & (X["sporty"] == 1))
    y = np.where(sick, "sick", "healthy")
    flip = rng.random(n) < 0.05
    y[flip] = np.where(y[flip] == "sick", "healthy", "sick")
    return X, y


def test_binary_frame_rules_names_certificate_pickle():
    X, y = _binary_frame()
    clf = BooleanRuleCGClassifier(complexity_bound=8, max_clause_length=3, random_state=0)
    clf.fit(X, y)
    assert list(clf.classes_) == ["healthy", "sick"]
    pred = clf.predict(X)
    assert (pred == y).mean() >= 0.9
    cert = clf.certificate_
    assert cert.proven_optimal and cert.lower_bound <= cert.objective
    # the rule is for classes_[1] = "sick"; its objective is recomputed from the model
    y01 = (y == clf.classes_[1]).astype(int)
    assert ruleset_objective_xy(clf.ruleset_, X.to_numpy(), y01).objective == cert.objective
    assert clf.complexity_ <= 8
    text = str(clf)
    assert any(nm in text for nm in ("smoker", "old", "male", "rich"))
    assert "bound" in text and "proven optimal" in text
    clf2 = pickle.loads(pickle.dumps(clf))
    assert (clf2.predict(X) == pred).all()
    c = clone(clf)
    assert not hasattr(c, "ruleset_")


def test_cnf_form():
    X, y = _binary_frame(1)
    clf = BooleanRuleCGClassifier(complexity_bound=8, max_clause_length=3, form="cnf").fit(X, y)
    assert clf.ruleset_.form == "cnf" and clf.certificate_.proven_optimal
    y01 = (y == clf.classes_[1]).astype(int)
    assert ruleset_objective_xy(clf.ruleset_, X.to_numpy(), y01).objective == clf.certificate_.objective


def test_weights_equal_repetitions():
    rng = np.random.default_rng(4)
    for _ in range(6):
        X = rng.integers(0, 2, size=(40, 6))
        y = ((X[:, 0] & X[:, 1]) | (rng.random(40) < 0.3)).astype(int)
        w = rng.integers(0, 4, size=40)
        if len(set(y[w > 0])) < 2:
            continue
        a = BooleanRuleCGClassifier(complexity_bound=8, max_clause_length=3).fit(X, y, sample_weight=w)
        b = BooleanRuleCGClassifier(complexity_bound=8, max_clause_length=3).fit(
            np.repeat(X, w, axis=0), np.repeat(y, w))
        assert a.certificate_.objective == b.certificate_.objective
        assert a.certificate_.proven_optimal and b.certificate_.proven_optimal


def test_pipeline_on_raw_features():
    rng = np.random.default_rng(3)
    X = pd.DataFrame({"age": rng.integers(18, 80, 300), "city": rng.choice(["a", "b", "c"], 300)})
    y = ((X["age"] > 50) & (X["city"] != "a")).astype(int).to_numpy()
    pipe = make_pipeline(FeatureBinarizer(n_thresholds=9), BooleanRuleCGClassifier(complexity_bound=6))
    pipe.fit(X, y)
    assert (pipe.predict(X) == y).mean() >= 0.95
    clf = pipe[-1]
    assert "age" in clf.ruleset_.to_text() and "city" in clf.ruleset_.to_text()


def test_binarizer_parameter_on_raw_features():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"x": rng.normal(size=200), "z": rng.normal(size=200)})
    y = ((X["x"] > 0.3) | (X["z"] < -1)).astype(int)
    clf = BooleanRuleCGClassifier(complexity_bound=6, binarizer=FeatureBinarizer()).fit(X, y)
    assert (clf.predict(X) == y).mean() >= 0.9
    assert "x" in clf.ruleset_.to_text()


def test_bad_input():
    X, y = _binary_frame()
    with pytest.raises(ValueError, match="binary"):
        BooleanRuleCGClassifier().fit(X * 3, y)
    Xn = X.astype(float)
    Xn.iloc[2, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        BooleanRuleCGClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="one class"):
        BooleanRuleCGClassifier().fit(X, np.full(len(y), "sick"))
    with pytest.raises(ValueError, match="complexity_bound=1 < 2"):
        BooleanRuleCGClassifier(complexity_bound=1, empty_clause=False).fit(X, y)
    with pytest.raises(ValueError, match=r"complexity_bound.*0\.5"):
        BooleanRuleCGClassifier(complexity_bound=0.5).fit(X, y)
    with pytest.raises(ValueError, match="max_clause_length"):
        BooleanRuleCGClassifier(max_clause_length=0).fit(X, y)
    with pytest.raises(ValueError, match="penalized form"):
        BooleanRuleCGClassifier(complexity_bound=None).fit(X, y)


def test_time_limit_bounds_the_fit_and_is_honest():
    from rulecert.datasets import load_tictactoe
    X, y = load_tictactoe()
    clf = BooleanRuleCGClassifier(complexity_bound=32, max_iter=1, close_gap=False,
                                  binarizer=FeatureBinarizer())
    clf.fit(X, y)
    cert = clf.certificate_
    assert cert.lower_bound <= cert.objective
    if not cert.proven_optimal:
        assert cert.termination.value in ("iteration_limit", "time_limit")


def test_cli_subcommand(tmp_path, capsys):
    from rulecert.cli import brcg
    X, y = _binary_frame(2)
    df = X.copy()
    df["target"] = (y == "sick").astype(int)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command")
    brcg.add_parser(sub)
    args = parser.parse_args(["brcg", "--data", str(path), "--C", "8", "--D", "3", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["certificate"]["proven_optimal"] and out["ruleset"]["type"] == "RuleSet"
    args = parser.parse_args(["brcg", "--data", str(path), "--C", "8"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "predict 1 if" in text and "smoker" in text and "time per phase" in text
    # a fit stopped after one iteration, its bound raised afterwards; the empty clause is in
    # the class by default (the certificate names it), --no-empty-clause leaves it out
    from test_colgen import _instance
    Xs, ys = _instance(400, n=40, d=9, noise=0.25)
    stopped = tmp_path / "stopped.csv"
    pd.DataFrame(Xs.astype(int), columns=[f"f{j}" for j in range(9)]).assign(target=ys) \
        .to_csv(stopped, index=False)
    for flag, named in (([], True), (["--no-empty-clause"], False)):
        args = parser.parse_args(["brcg", "--data", str(stopped), "--C", "9", "--D", "4",
                                  "--max-iter", "2", "--bound-node-limit", "1",
                                  "--final-bound-node-limit", "1", "--no-close-gap",
                                  "--strengthen-nodes", "100000", "--json", *flag])
        assert args.func(args) == 0
        cert = json.loads(capsys.readouterr().out)["certificate"]
        assert ("the empty clause" in cert["message"]) is named
        assert "raised after the solve" in cert["message"]
        b = cert["stats"]["bound_strengthening"]
        assert b["node_budget"] == 100000 and 0 < b["nodes"] <= 100000
        assert b["bound_before"] < b["bound"] == cert["lower_bound"] <= cert["objective"]
        _, opt = brute_force_ruleset(Xs, ys, 9, 4, empty_clause=named)
        assert cert["lower_bound"] <= opt + 1e-9
    with pytest.raises(ValueError, match="--strengthen-nodes"):
        args.func(parser.parse_args(["brcg", "--data", str(path), "--strengthen-nodes", "0"]))
    with pytest.raises(ValueError, match=r"--workers must be an integer >= 1, got 0$"):
        args.func(parser.parse_args(["brcg", "--data", str(path), "--workers", "0"]))
    # several C: chosen by cross-validation, then refitted; the JSON holds the CV table
    args = parser.parse_args(["brcg", "--data", str(path), "--C", "4", "8", "--D", "3",
                              "--cv", "3", "--json"])
    assert args.func(args) == 0
    out = json.loads(capsys.readouterr().out)
    cv = out["cv_results"]
    assert cv["complexity_bound"] == [4, 8] and len(cv["split2_test_score"]) == 2
    best = int(np.argmax(cv["mean_test_score"]))
    assert out["complexity_bound"] == [4, 8][best]
    from rulecert.models.ruleset import RuleSet
    assert RuleSet.from_dict(out["ruleset"]).complexity <= out["complexity_bound"]
    args = parser.parse_args(["brcg", "--data", str(path), "--C", "4", "8", "--selection", "1se"])
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "<- chosen" in text and "predict 1 if" in text


@pytest.mark.slow
def test_tic_tac_toe_estimator_with_binarizer():
    from rulecert.datasets import load_tictactoe
    X, y = load_tictactoe()
    clf = BooleanRuleCGClassifier(complexity_bound=32, binarizer=FeatureBinarizer(), time_limit=300)
    clf.fit(X, y)
    assert (clf.predict(X) == y).all() and clf.complexity_ == 32
    assert clf.certificate_.proven_optimal


def test_warm_start_path_over_C_matches_brute_force():
    """Walking a grid of C with warm_start reuses every clause generated so far and still
    reaches the brute-force optimum at each C (recomputed from the returned model)."""
    from rulecert.reference import brute_force_ruleset
    rng = np.random.default_rng(3)
    X = rng.random((30, 7)) < 0.5
    y = ((X[:, 0] & X[:, 1]) | (X[:, 2] & ~X[:, 3])) ^ (rng.random(30) < 0.2)
    y = y.astype(int)
    clf = BooleanRuleCGClassifier(complexity_bound=3, max_clause_length=3, warm_start=True,
                                  pricing_deterministic_time=10.0, random_state=0)
    pool = set()
    for C in (3, 5, 8, 11):
        clf.set_params(complexity_bound=C)
        clf.fit(X, y)
        if pool:
            assert pool <= set(clf.columns_), "warm start dropped earlier columns"
        pool = set(clf.columns_)
        _, bf_obj = brute_force_ruleset(X, y, C, 3, empty_clause=True)
        obj = ruleset_objective_xy(clf.ruleset_, X, y).objective
        assert clf.certificate_.proven_optimal and obj == clf.certificate_.objective == bf_obj
        assert clf.complexity_ <= C
    # a cold fit ignores the pool; a changed feature set is not warm-started
    cold = BooleanRuleCGClassifier(complexity_bound=11, max_clause_length=3,
                                   pricing_deterministic_time=10.0, random_state=0).fit(X, y)
    assert cold.certificate_.objective == clf.certificate_.objective
    clf.fit(X[:, :5], y)
    assert all(max(c) < 5 for c in clf.columns_ if c)


def test_ip_node_limit_reaches_the_restricted_ip_and_is_checked():
    """The estimators pass colgen's restricted-IP node limit (a deterministic limit for runs
    without a clock) and refuse a bad one before fitting."""
    from rulecert.estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    clf = BooleanRuleCGClassifier(complexity_bound=10, ip_node_limit=7)
    assert clf._options(0, 10, None).ip_node_limit == 7
    assert BooleanRuleCGCV(ip_node_limit=7).get_params()["ip_node_limit"] == 7
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3, dtype=bool)
    y = np.array([0, 1, 1, 0] * 3)
    with pytest.raises(ValueError, match="ip_node_limit"):
        BooleanRuleCGClassifier(ip_node_limit=0).fit(X, y)


def test_gap_closing_limits_reach_the_solve_from_the_estimators_and_the_command(tmp_path, capsys):
    """Gap closing's cap, node budget and ladder after the cap are parameters of both
    estimators and options of ``rulecert brcg``: a cap of 3 clauses reaches the solve, the
    ladder climbs past it only when asked and then raises the bound, never past brute force;
    bad values are refused naming the parameter.  The command runs on counted limits alone
    (``--pricing-time-limit none``, ``--ip-node-limit``)."""
    from rulecert.cli import brcg
    from rulecert.estimators.brcg import BooleanRuleCGCV
    from test_colgen import _instance
    clf = BooleanRuleCGClassifier(close_gap_max_columns=3, close_gap_node_limit=500,
                                  close_gap_ladder_after_cap=True)
    o = clf._options(0, 10, None)
    assert (o.close_gap_max_columns, o.close_gap_node_limit, o.close_gap_ladder_after_cap) == \
        (3, 500, True)
    assert BooleanRuleCGCV(close_gap_max_columns=3).get_params()["close_gap_max_columns"] == 3
    X, y = _instance(906, n=50, d=10, noise=0.3)
    path = tmp_path / "capped.csv"
    pd.DataFrame(X.astype(int), columns=[f"f{j}" for j in range(10)]).assign(target=y) \
        .to_csv(path, index=False)
    _, opt = brute_force_ruleset(X, y, 8, 3)
    parser = argparse.ArgumentParser()
    brcg.add_parser(parser.add_subparsers(dest="command"))
    base = ["brcg", "--data", str(path), "--C", "8", "--D", "3", "--pricing", "heuristic",
            "--max-iter", "3", "--pricing-time-limit", "none", "--ip-node-limit", "200",
            "--gap-max-columns", "3", "--json"]
    parsed = parser.parse_args(base)
    assert parsed.pricing_time_limit is None and parsed.ip_node_limit == 200
    with pytest.raises(SystemExit):
        parser.parse_args(base + ["--pricing-time-limit", "soon"])
    certs = []
    for flag in ([], ["--gap-ladder-after-cap"]):
        args = parser.parse_args(base + flag)
        assert args.func(args) == 0
        cert = json.loads(capsys.readouterr().out)["certificate"]
        g = cert["stats"]["gap_closing"]
        assert g["cap"] == 3 and not g["complete"] and (len(g["ladder"]) > 1) is bool(flag)
        assert cert["lower_bound"] <= opt <= cert["objective"]
        certs.append(cert)
    assert certs[0]["lower_bound"] < certs[1]["lower_bound"]
    assert certs[1]["stats"]["bound_kind"].startswith("partial reduced-cost enumeration")
    with pytest.raises(ValueError, match="close_gap_max_columns"):
        args.func(parser.parse_args(base[:-3] + ["--gap-max-columns", "0"]))
    with pytest.raises(ValueError, match="close_gap_node_limit"):
        BooleanRuleCGClassifier(close_gap_node_limit=0).fit(X, y)
    from rulecert.mipmodels.colgen import solve
    from rulecert.problem import RuleProblem
    with pytest.raises(ValueError, match="close_gap_node_limit"):
        solve(RuleProblem.from_matrix(X, y), complexity_bound=8, close_gap_node_limit=-1)


def _tiny_brcg_command(tmp_path, seed, noise):
    """A tiny instance (40 rows, 9 features) as a CSV, a parser of ``rulecert brcg`` and the
    command's arguments on it (C = 9, D = 4)."""
    from rulecert.cli import brcg
    from test_colgen import _instance
    X, y = _instance(seed, n=40, d=9, noise=noise)
    path = tmp_path / "tiny.csv"
    pd.DataFrame(X.astype(int), columns=[f"f{j}" for j in range(9)]).assign(target=y) \
        .to_csv(path, index=False)
    parser = argparse.ArgumentParser()
    brcg.add_parser(parser.add_subparsers(dest="command"))
    return X, y, parser, ["brcg", "--data", str(path), "--C", "9", "--D", "4"]


def test_every_solver_parameter_reaches_the_options_and_both_estimators_share_defaults():
    """Each estimator parameter named like a ``ColGenOptions`` field reaches the fit's options
    as given (numpy scalars as Python ones), on both BRCG estimators, and the parameters the
    two share have the same defaults."""
    import dataclasses
    import inspect

    from rulecert.estimators.brcg import BooleanRuleCGCV
    from rulecert.mipmodels.colgen import ColGenOptions, certification_options
    fields = {f.name for f in dataclasses.fields(ColGenOptions)}
    given = {**certification_options(40), "max_clause_length": 4, "empty_clause": np.bool_(False),
             "form": "cnf", "fn_weight": np.float64(2.5), "literal_penalty": 0.25,
             "ip_options": {"mip_heuristic_effort": 0.0}, "beam_width": np.int64(7),
             "polish_iterations": 3, "sample_rows": 99, "max_nonzeros": 1234, "workers": 2,
             "memory_limit_mb": 512.0}
    for est in (BooleanRuleCGClassifier(complexity_bound=9, **given),
                BooleanRuleCGCV(complexity_bounds=(5, 9), **given)):
        shared = {k for k in est.get_params() if k in fields}
        assert shared >= set(given) - {"time_limit"}
        opts = est._options(seed=17, complexity_bound=9, time_limit=12.5)
        for k in shared - {"complexity_bound", "time_limit"}:
            want = given.get(k, est.get_params()[k])
            assert getattr(opts, k) == want and not isinstance(getattr(opts, k), np.generic), k
        assert (opts.complexity_bound, opts.time_limit, opts.seed) == (9, 12.5, 17)
        assert type(opts.empty_clause) is bool and type(opts.fn_weight) is float
        assert type(opts.beam_width) is int
    one, cv = (inspect.signature(c.__init__).parameters
               for c in (BooleanRuleCGClassifier, BooleanRuleCGCV))
    both = (set(one) & set(cv)) - {"self"}
    assert len(both) >= 35
    assert {k: one[k].default for k in both} == {k: cv[k].default for k in both}


def test_certify_presets_counted_limits_sized_to_the_data_and_explicit_options_win(tmp_path, capsys):
    """``rulecert brcg --certify`` fits with ``certification_options`` on the data's rows (no
    clock, exact branch-and-bound pricing, large budgets), an option given on the command
    line wins over it, and without ``--certify`` the defaults are unchanged; a certified
    fit of a tiny instance is its brute-force optimum."""
    from rulecert.cli import brcg
    from rulecert.mipmodels.colgen import certification_options
    X, y, parser, base = _tiny_brcg_command(tmp_path, 400, noise=0.25)
    preset = certification_options(40)
    got = brcg.fit_limits(parser.parse_args(base + ["--certify"]), 40)
    assert got == {k: preset.get(k, v) for k, v in brcg.limit_defaults().items()}
    assert got["time_limit"] is None and got["pricing_time_limit"] is None
    assert got["pricing"] == "bnb" and got["close_gap_max_columns"] == 100_000
    assert got["dive"] is True and brcg.limit_defaults()["dive"] is False
    assert got["adaptive_chain"] is True and brcg.limit_defaults()["adaptive_chain"] is False
    # the estimators take the preset as keyword arguments
    from rulecert.estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    for est in (BooleanRuleCGClassifier(complexity_bound=9, **preset),
                BooleanRuleCGCV(complexity_bounds=(5, 9), **preset)):
        assert {k: est.get_params()[k] for k in preset} == preset
    mine = brcg.fit_limits(parser.parse_args(base + ["--certify", "--max-iter", "3",
                                                     "--no-close-gap", "--no-dive",
                                                     "--no-adaptive-chain"]), 40)
    assert mine == {**got, "max_iter": 3, "close_gap": False, "dive": False,
                    "adaptive_chain": False}
    assert brcg.fit_limits(parser.parse_args(base), 40) == brcg.limit_defaults()
    assert brcg.fit_limits(parser.parse_args(base + ["--dive"]), 40) == \
        {**brcg.limit_defaults(), "dive": True}
    big = certification_options(45_211)
    assert (big["bnb_node_limit"], big["close_gap_node_limit"]) == \
        (int(3e7 * 2000 / 45_211), int(1e8 * 2000 / 45_211))
    assert certification_options(np.int64(45_211)) == certification_options(45_211)
    split = certification_options(768, bnb_nodes=30_000_000, gap_nodes=100_000_000)
    assert (split["bnb_node_limit"], split["close_gap_node_limit"]) == (30_000_000, 100_000_000)
    with pytest.raises(ValueError, match="rows must be an integer >= 1"):
        certification_options(0)
    args = parser.parse_args(base + ["--certify", "--json"])
    assert args.func(args) == 0
    cert = json.loads(capsys.readouterr().out)["certificate"]
    _, opt = brute_force_ruleset(X, y, 9, 4)
    assert cert["proven_optimal"] and cert["objective"] == opt
    assert cert["stats"]["dive"] is not None      # the dive ran (the preset turns it on)


def test_certify_strengthens_a_fit_that_max_iter_stopped_before_its_last_search(tmp_path, capsys,
                                                                              monkeypatch):
    """``--certify`` gives a fit that ``max_iter`` stopped before its last bound search that
    search's budget (``--final-bound-node-limit``'s) through ``strengthen_bound``: the bound
    never falls and never passes brute force; ``--strengthen-nodes`` wins over that budget,
    and without ``--certify`` nothing is strengthened."""
    from rulecert.mipmodels.colgen import certification_options
    X, y, parser, base = _tiny_brcg_command(tmp_path, 401, noise=0.3)
    # the positive-side proof off: it proves these fits optimal, leaving nothing to strengthen
    base += ["--max-iter", "1", "--no-close-gap", "--positive-side-nodes", "0", "--json"]
    _, opt = brute_force_ruleset(X, y, 9, 4)

    def certificate(*extra):
        args = parser.parse_args(base + list(extra))
        args.func(args)
        return json.loads(capsys.readouterr().out)["certificate"]

    plain = certificate()
    assert plain["stats"]["stop_reason"] == "max_iter" and not plain["proven_optimal"]
    assert "bound_strengthening" not in plain["stats"]
    cert = certificate("--certify")
    done = cert["stats"]["bound_strengthening"]
    assert cert["stats"]["stop_reason"] == "max_iter" and not done.get("skipped")
    assert done["node_budget"] == certification_options(40)["final_bound_node_limit"]
    assert done["bound_before"] <= cert["lower_bound"] <= opt + 1e-9
    assert certificate("--certify", "--strengthen-nodes", "3000")[
        "stats"]["bound_strengthening"]["node_budget"] == 3000
    # a fit that a time limit stopped before its first pricing call has no duals to search at
    # (whether a tiny limit does so depends on the machine's speed, so the test takes the
    # state away after a real fit): the command still prints its result and says why
    # nothing was strengthened, where strengthen_bound itself would refuse
    fit = BooleanRuleCGClassifier.fit

    def fit_without_duals(self, *a, **k):
        fit(self, *a, **k)
        self._bound_state = None
        return self
    monkeypatch.setattr(BooleanRuleCGClassifier, "fit", fit_without_duals)
    early = certificate("--certify")
    assert not early["proven_optimal"] and early["lower_bound"] <= opt + 1e-9
    assert early["stats"]["bound_strengthening"]["skipped"].startswith(
        "the fit stopped before its first pricing call")


def test_certify_runs_the_positive_side_proof_and_prints_it(tmp_path, capsys):
    """``--certify`` gives the positive-side proof its budget (``certification_options``);
    on a fit that ``max_iter`` stopped with the gap open it raises the bound (never past
    brute force), the text output says so on its own line, and ``--positive-side-nodes 0``
    turns it off."""
    X, y, parser, base = _tiny_brcg_command(tmp_path, 401, noise=0.3)
    base += ["--max-iter", "1", "--no-close-gap", "--strengthen-nodes", "1"]
    _, opt = brute_force_ruleset(X, y, 9, 4)

    def run(*extra):
        args = parser.parse_args(base + list(extra))
        args.func(args)
        return capsys.readouterr().out

    on = run("--certify", "--json")
    cert = json.loads(on)["certificate"]
    rec = cert["stats"]["positive_side"]
    assert rec["bound"] > rec["bound_before"] and rec["bound"] == cert["lower_bound"] <= opt
    assert "positive-side search" in cert["stats"]["bound_kind"]
    text = run("--certify")
    assert f"positive side   : bound {rec['bound_before']:g} -> {rec['bound']:g} with " in text
    off = json.loads(run("--certify", "--positive-side-nodes", "0", "--json"))["certificate"]
    assert off["stats"]["positive_side"] is None and off["lower_bound"] < cert["lower_bound"]
