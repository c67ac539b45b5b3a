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
    base = dict(complexity_bound=10, max_clause_length=2, max_iter=5, pricing_nodes=20000,
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
        BooleanRuleCGClassifier(complexity_bound=1, solver_options={'empty_clause': False}).fit(X, y)
    with pytest.raises(ValueError, match=r"complexity_bound.*0\.5"):
        BooleanRuleCGClassifier(complexity_bound=0.5).fit(X, y)
    with pytest.raises(ValueError, match="max_clause_length"):
        BooleanRuleCGClassifier(max_clause_length=0).fit(X, y)
    with pytest.raises(ValueError, match="penalized form"):
        BooleanRuleCGClassifier(complexity_bound=None).fit(X, y)


def test_time_limit_bounds_the_fit_and_is_honest():
    from rulecert.datasets import load_tictactoe
    X, y = load_tictactoe()
    clf = BooleanRuleCGClassifier(complexity_bound=32, 
                                  binarizer=FeatureBinarizer(), solver_options={'max_iter': 1, 'close_gap': False})
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
    for flag, named in (([], True), (["--option", "empty_clause=false"], False)):
        args = parser.parse_args(["brcg", "--data", str(stopped), "--C", "9", "--D", "4",
                                  "--option", "max_iter=2", "--option", "bound_nodes=1",
                                  "--option", "final_bound_nodes=1", "--option", "close_gap=false",
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
                                  random_state=0, solver_options={'pricing_deterministic_time': 10.0})
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
                                   random_state=0, solver_options={'pricing_deterministic_time': 10.0}).fit(X, y)
    assert cold.certificate_.objective == clf.certificate_.objective
    clf.fit(X[:, :5], y)
    assert all(max(c) < 5 for c in clf.columns_ if c)


def test_ip_nodes_reaches_the_restricted_ip_and_is_checked():
    """``solver_options={"ip_nodes": N}`` reaches the fit's options on both estimators (a
    deterministic limit for runs without a clock) and a bad value is refused, naming the key,
    before fitting."""
    from rulecert.estimators.brcg import BooleanRuleCGClassifier, BooleanRuleCGCV
    clf = BooleanRuleCGClassifier(complexity_bound=10, solver_options={'ip_nodes': 7})
    assert clf._options(40, 0, 10, None).limits.ip_nodes == 7
    cv = BooleanRuleCGCV(solver_options={'ip_nodes': 7})
    assert cv._options(40, 0, 10, None).limits.ip_nodes == 7
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3, dtype=bool)
    y = np.array([0, 1, 1, 0] * 3)
    with pytest.raises(ValueError, match="ip_nodes"):
        BooleanRuleCGClassifier(solver_options={'ip_nodes': 0}).fit(X, y)


def test_gap_closing_settings_reach_the_solve_from_the_estimators_and_the_command(tmp_path,
                                                                                capsys):
    """Gap closing's cap, node budget and ladder after the cap are solver options of both
    estimators and ``--option``s of ``rulecert brcg``: a cap of 3 clauses reaches the solve,
    the ladder climbs past it only when asked and then raises the bound, never past brute
    force; bad values are refused naming the key.  The command runs on counted limits alone
    (``pricing_seconds=none``, ``ip_nodes``)."""
    from rulecert.cli import brcg
    from test_colgen import _instance
    clf = BooleanRuleCGClassifier(solver_options={'close_gap_columns': 3, 'close_gap_nodes': 500,
                                                  'ladder_after_cap': True})
    c = clf._options(40, 0, 10, None).certification
    assert (c.close_gap_columns, c.close_gap_nodes, c.ladder_after_cap) == (3, 500, True)
    X, y = _instance(906, n=50, d=10, noise=0.3)
    path = tmp_path / "capped.csv"
    pd.DataFrame(X.astype(int), columns=[f"f{j}" for j in range(10)]).assign(target=y) \
        .to_csv(path, index=False)
    _, opt = brute_force_ruleset(X, y, 8, 3)
    parser = argparse.ArgumentParser()
    brcg.add_parser(parser.add_subparsers(dest="command"))
    base = ["brcg", "--data", str(path), "--C", "8", "--D", "3", "--option", "pricers=heuristic",
            "--option", "max_iter=3", "--option", "pricing_seconds=none",
            "--option", "ip_nodes=200", "--option", "close_gap_columns=3", "--json"]
    o = brcg.build_estimator(parser.parse_args(base))._options(50, 0, 8, None)
    assert o.pricing.pricing_seconds is None and o.limits.ip_nodes == 200
    certs = []
    for flag in ([], ["--option", "ladder_after_cap=true"]):
        args = parser.parse_args(base + flag)
        assert args.func(args) == 0
        cert = json.loads(capsys.readouterr().out)["certificate"]
        g = cert["stats"]["gap_closing"]
        assert g["cap"] == 3 and not g["complete"] and (len(g["ladder"]) > 1) is bool(flag)
        assert cert["lower_bound"] <= opt <= cert["objective"]
        certs.append(cert)
    assert certs[0]["lower_bound"] < certs[1]["lower_bound"]
    assert certs[1]["stats"]["bound_kind"] == "gap closing"
    assert certs[1]["stats"]["bound_detail"].startswith("partial reduced-cost enumeration")
    with pytest.raises(ValueError, match="close_gap_columns"):
        args.func(parser.parse_args(base + ["--option", "close_gap_columns=0"]))
    with pytest.raises(ValueError, match="close_gap_nodes"):
        BooleanRuleCGClassifier(solver_options={'close_gap_nodes': 0}).fit(X, y)
    from rulecert.mipmodels.colgen import solve
    from rulecert.problem import RuleProblem
    with pytest.raises(ValueError, match="close_gap_nodes"):
        solve(RuleProblem.from_matrix(X, y), complexity_bound=8, close_gap_nodes=-1)


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


def test_the_settings_surface_is_small_and_every_setting_reaches_the_options():
    """Both estimators take at most 16 parameters; the model and plumbing parameters and every
    ``solver_options`` key reach the fit's options as given (numpy scalars as Python ones),
    over the effort level's budgets; the parameters the two share have the same defaults."""
    import inspect

    from rulecert.estimators.brcg import BooleanRuleCGCV
    from rulecert.mipmodels.colgen import SOLVER_OPTIONS, effort_settings
    given = {"empty_clause": np.bool_(False), "ip_options": {"mip_heuristic_effort": 0.0},
             "beam_width": np.int64(7), "polish_kicks": 3, "sample_rows": 99,
             "max_nonzeros": 1234, "max_iter": 4}
    assert set(given) <= set(SOLVER_OPTIONS)
    for est in (BooleanRuleCGClassifier(complexity_bound=9, max_clause_length=4, form="cnf",
                                        fn_weight=np.float64(2.5), complexity_penalty=(0, 0.25),
                                        effort="certify", workers=2, memory_limit_mb=512.0,
                                        solver_options=given),
                BooleanRuleCGCV(complexity_bounds=(5, 9), max_clause_length=4, form="cnf",
                                fn_weight=np.float64(2.5), complexity_penalty=(0, 0.25),
                                effort="certify", workers=2, memory_limit_mb=512.0,
                                solver_options=given)):
        assert len(inspect.signature(type(est)).parameters) - 1 <= 16   # less **old
        flat = est._options(40, 17, 9, 12.5).flat()
        for k, v in {**effort_settings("certify", 40), **given}.items():
            assert flat[k] == v and not isinstance(flat[k], np.generic), k
        assert (flat["complexity_bound"], flat["time_limit"], flat["seed"]) == (9, 12.5, 17)
        assert (flat["max_clause_length"], flat["form"], flat["workers"]) == (4, "cnf", 2)
        assert (flat["clause_penalty"], flat["literal_penalty"]) == (0.0, 0.25)
        assert type(flat["empty_clause"]) is bool and type(flat["fn_weight"]) is float
        assert type(flat["beam_width"]) is int and flat["memory_limit_mb"] == 512.0
    one, cv = (inspect.signature(c.__init__).parameters
               for c in (BooleanRuleCGClassifier, BooleanRuleCGCV))
    both = (set(one) & set(cv)) - {"self", "old"}
    assert len(both) >= 12
    assert {k: one[k].default for k in both} == {k: cv[k].default for k in both}


def test_bad_settings_are_refused_in_one_line_before_any_work():
    """An unknown effort, an unknown or mistyped solver option, a value of the wrong type and
    an old parameter name each fail with one line naming the problem (and the new spelling),
    before any fit starts."""
    from rulecert.estimators.brcg import BooleanRuleCGCV
    X = np.array([[0, 1], [1, 0], [1, 1], [0, 0]] * 3, dtype=bool)
    y = np.array([0, 1, 1, 0] * 3)
    cases = [(dict(effort="thorough"), "effort"),
             (dict(solver_options={"beam_widht": 3}), "did you mean 'beam_width'"),
             (dict(solver_options={"max_iter": "ten"}), "max_iter must be an integer"),
             (dict(solver_options={"close_gap": 1}), "close_gap must be True or False"),
             (dict(solver_options={"bnb_node_limit": 5}), "renamed: use 'pricing_nodes'"),
             (dict(solver_options={"smoothing": 0.5}), "no longer a setting"),
             (dict(solver_options={"time_limit": 5}), "parameter of the estimator"),
             (dict(solver_options=[("max_iter", 3)]), "solver_options")]
    for est in (BooleanRuleCGClassifier, BooleanRuleCGCV):
        for kw, match in cases:
            with pytest.raises(ValueError, match=match) as err:
                est(**kw).fit(X, y)
            assert "\n" not in str(err.value)
        for old, match in [("max_iter", r"solver_options=\{'max_iter': 3\}"),
                           ("bnb_node_limit", r"solver_options=\{'pricing_nodes': 3\}"),
                           ("clause_penalty", "complexity_penalty"),
                           ("certification_options", "effort='certify'"),
                           ("max_itr", "did you mean 'max_iter'")]:
            with pytest.raises(TypeError, match=match):
                est(**{old: 3})


def test_certify_effort_sizes_counted_budgets_to_the_data_and_explicit_options_win(tmp_path,
                                                                                   capsys):
    """``rulecert brcg --effort certify`` fits with the certify level's budgets on the data's
    rows (no clock per pricing call, exact branch-and-bound pricing, large budgets), an
    ``--option`` given on the command line wins over it, and the default level keeps the
    defaults; an old flag is refused with its new spelling; a certified fit of a tiny
    instance is its brute-force optimum."""
    from rulecert.cli import brcg
    from rulecert.mipmodels.colgen import ColGenOptions
    from rulecert.mipmodels.colgen.presets import certify_settings
    X, y, parser, base = _tiny_brcg_command(tmp_path, 400, noise=0.25)
    preset = certify_settings(40)

    def flat(*extra):
        return brcg.build_estimator(parser.parse_args(base + list(extra)))._options(
            40, 0, 9, None).flat()
    got = flat("--effort", "certify")
    assert {k: got[k] for k in preset} == preset
    assert got["pricing_seconds"] is None and got["pricers"] == "bnb"
    assert got["close_gap_columns"] == 100_000 and got["dive"] and got["adaptive_chain"]
    defaults = ColGenOptions().flat()
    assert not defaults["dive"] and not defaults["adaptive_chain"]
    mine = flat("--effort", "certify", "--option", "max_iter=3", "--option", "close_gap=false",
                "--option", "dive=false", "--option", "adaptive_chain=false")
    assert mine == {**got, "max_iter": 3, "close_gap": False, "dive": False,
                    "adaptive_chain": False}
    plain = flat()
    assert {k: plain[k] for k in preset} == {k: defaults[k] for k in preset}
    assert flat("--option", "dive=true") == {**plain, "dive": True}
    big = certify_settings(45_211)
    assert (big["pricing_nodes"], big["close_gap_nodes"]) == \
        (int(3e7 * 2000 / 45_211), int(1e8 * 2000 / 45_211))
    assert certify_settings(np.int64(45_211)) == certify_settings(45_211)
    split = certify_settings(768, bnb_nodes=30_000_000, gap_nodes=100_000_000)
    assert (split["pricing_nodes"], split["close_gap_nodes"]) == (30_000_000, 100_000_000)
    with pytest.raises(ValueError, match="rows must be an integer >= 1"):
        certify_settings(0)
    for old, new in [("--certify", "--effort certify"), ("--max-iter", "max_iter=N")]:
        with pytest.raises(SystemExit):
            parser.parse_args(base + [old] + (["3"] if old == "--max-iter" else []))
        assert new in capsys.readouterr().err
    args = parser.parse_args(base + ["--effort", "certify", "--json"])
    assert args.func(args) == 0
    cert = json.loads(capsys.readouterr().out)["certificate"]
    _, opt = brute_force_ruleset(X, y, 9, 4)
    assert cert["proven_optimal"] and cert["objective"] == opt
    # the level turns the dive on: it ran, or the gap was closed before it (recorded either way)
    assert "dive" in cert["stats"]["steps"]


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_certify_strengthens_a_fit_that_max_iter_stopped_before_its_last_search(tmp_path, capsys,
                                                                              monkeypatch):
    """``--effort certify`` gives a fit that ``max_iter`` stopped before its last bound search
    that search's budget (``final_bound_nodes``) through ``strengthen_bound``: the bound
    never falls and never passes brute force; ``--strengthen-nodes`` wins over that budget,
    and at the default effort nothing is strengthened."""
    from rulecert.mipmodels.colgen.presets import certify_settings
    X, y, parser, base = _tiny_brcg_command(tmp_path, 401, noise=0.3)
    # the positive-side proof off: it proves these fits optimal, leaving nothing to strengthen
    base += ["--option", "max_iter=1", "--option", "close_gap=false",
             "--option", "positive_side_cover_lps=0", "--json"]
    _, opt = brute_force_ruleset(X, y, 9, 4)

    def certificate(*extra):
        args = parser.parse_args(base + list(extra))
        args.func(args)
        return json.loads(capsys.readouterr().out)["certificate"]

    plain = certificate()
    assert plain["stats"]["stop_reason"] == "max_iter" and not plain["proven_optimal"]
    assert "bound_strengthening" not in plain["stats"]
    cert = certificate("--effort", "certify")
    done = cert["stats"]["bound_strengthening"]
    assert cert["stats"]["stop_reason"] == "max_iter" and not done.get("skipped")
    assert done["node_budget"] == certify_settings(40)["final_bound_nodes"]
    assert done["bound_before"] <= cert["lower_bound"] <= opt + 1e-9
    assert certificate("--effort", "certify", "--strengthen-nodes", "3000")[
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
    early = certificate("--effort", "certify")
    assert not early["proven_optimal"] and early["lower_bound"] <= opt + 1e-9
    assert early["stats"]["bound_strengthening"]["skipped"].startswith(
        "the fit stopped before its first pricing call")


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_certify_runs_the_positive_side_proof_and_prints_it(tmp_path, capsys):
    """``--effort certify`` gives the positive-side proof its budget; on a fit that
    ``max_iter`` stopped with the gap open it raises the bound (never past brute force), the
    text output says so on its own line, and ``positive_side_cover_lps=0`` turns it off."""
    X, y, parser, base = _tiny_brcg_command(tmp_path, 401, noise=0.3)
    base += ["--option", "max_iter=1", "--option", "close_gap=false", "--strengthen-nodes", "1"]
    _, opt = brute_force_ruleset(X, y, 9, 4)

    def run(*extra):
        args = parser.parse_args(base + list(extra))
        args.func(args)
        return capsys.readouterr().out

    on = run("--effort", "certify", "--json")
    cert = json.loads(on)["certificate"]
    rec = cert["stats"]["positive_side"]
    assert rec["bound"] > rec["bound_before"] and rec["bound"] == cert["lower_bound"] <= opt
    assert cert["stats"]["bound_kind"] == "positive-side proof"
    text = run("--effort", "certify")
    assert f"positive side   : bound {rec['bound_before']:g} -> {rec['bound']:g} with " in text
    off = json.loads(run("--effort", "certify", "--option", "positive_side_cover_lps=0",
                         "--json"))["certificate"]
    assert off["stats"]["positive_side"] is None and off["lower_bound"] < cert["lower_bound"]
