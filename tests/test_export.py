"""Export a fitted model with its binarizer to JSON and use it later: library round trips on the
shared data (same predictions, same scores, objectives recomputed from the loaded model), the
document's readable literals, ``rulecert predict``, ``--save-model``, ``--missing`` and the
printed text."""
import json

import numpy as np
import pandas as pd
import pytest
from sklearn.pipeline import make_pipeline

from rulecert import datasets
from rulecert.cli import main
from rulecert.estimators import (BooleanRuleCGClassifier, CorelsClassifier,
                                 FallingRuleListClassifier, RuleListMIPClassifier,
                                 SoftFallingRuleListClassifier)
from rulecert.export import FORMAT, VERSION, from_json, load_model, save_model, to_json
from rulecert.mining import FeatureBinarizer
from rulecert.models import RuleList, RuleSet, frl_objective, soft_frl_objective
from rulecert.models.ruleset import ruleset_objective_xy

pytestmark = pytest.mark.filterwarnings("ignore:c=.* is below 1/n:UserWarning")


@pytest.fixture(scope="module")
def heart(shared_data):
    X, y = datasets.load_heart()            # 303 rows, missing values in 'ca' and 'thal'
    return X, np.where(y == 1, "disease", "healthy")


@pytest.fixture(scope="module")
def compas(shared_data):
    X, y = datasets.load_compas()           # strings and integers
    return X.iloc[:2000].reset_index(drop=True), y[:2000]


# ---- the binarizer ----------------------------------------------------------------------------
@pytest.mark.parametrize("missing", ["indicator", "category"])
def test_binarizer_json_round_trip_transforms_alike(heart, compas, missing):
    for X in (heart[0], compas[0]):
        fb = FeatureBinarizer(n_thresholds=5, missing=missing).fit(X)
        back = FeatureBinarizer.from_json(fb.to_json())
        pd.testing.assert_frame_equal(back.transform(X), fb.transform(X))
        assert list(back.get_feature_names_out()) == list(fb.get_feature_names_out())
        lits = json.loads(fb.to_json())["literals"]
        assert all(set(d) == {"feature", "op", "value", "text"} for d in lits)
    # readable literals: the heart data's 'ca is missing' and a numeric threshold
    fb = FeatureBinarizer(n_thresholds=5, missing=missing).fit(heart[0])
    lits = {d["text"]: d for d in fb.literal_dicts()}
    assert lits["ca is missing"] == {"feature": "ca", "op": "is missing", "value": None,
                                     "text": "ca is missing"}
    age = [d for d in lits.values() if d["feature"] == "age" and d["op"] == "<="][0]
    assert age["text"] == f"age <= {age['value']:g}"


def test_binarizer_from_dict_rejects_other_documents():
    with pytest.raises(ValueError, match="not a FeatureBinarizer document"):
        FeatureBinarizer.from_dict({"type": "RuleList"})
    with pytest.raises(ValueError, match="malformed FeatureBinarizer"):
        FeatureBinarizer.from_dict({"type": "FeatureBinarizer", "params": {}})


# ---- estimators, saved and loaded ---------------------------------------------------------------
def _training_binary(est, X):
    return est.binarizer_.transform(X).to_numpy().astype(bool)


def _check_round_trip(tmp_path, est, X):
    path = tmp_path / "m.json"
    doc = save_model(path, est)
    saved = load_model(path)
    np.testing.assert_array_equal(saved.predict(X), est.predict(X))
    np.testing.assert_allclose(saved.predict_proba(X), est.predict_proba(X), rtol=0, atol=0)
    np.testing.assert_allclose(saved.decision_function(X), est.decision_function(X))
    assert doc["format"] == FORMAT and doc["version"] == VERSION
    assert doc["classes"] == list(est.classes_)
    assert json.loads(path.read_text()) == json.loads(json.dumps(doc, default=str))
    return saved, doc


def test_corels_round_trip_on_compas_and_objective_recomputed(tmp_path, compas):
    X, y = compas
    est = CorelsClassifier(c=0.005, max_card=1, binarizer=FeatureBinarizer(n_thresholds=4)).fit(X, y)
    saved, doc = _check_round_trip(tmp_path, est, X)
    assert isinstance(saved.model, RuleList)
    # the loaded list's objective, recomputed on the training data, is the certified one
    Xb = _training_binary(est, X)
    mistakes = int((saved.model.predict(Xb) != y).sum())
    assert mistakes / len(y) + 0.005 * saved.model.n_rules == pytest.approx(
        est.certificate_.objective, abs=1e-12)
    # readable rules: each literal names a raw column, an operator and a value
    for rule in doc["rules"][:-1]:
        for lit in rule["if"]:
            assert lit["feature"] in X.columns and lit["op"] in ("<=", ">", "==", "!=")
            assert isinstance(lit["negated"], bool) and lit["text"]
    assert doc["rules"][-1]["else"] is True
    assert doc["text"] == est.rule_list_.to_text(probabilities=True, labels=est.classes_)
    assert doc["meta"]["estimator"] == "CorelsClassifier"
    assert doc["meta"]["certificate"]["objective"] == est.certificate_.objective


def test_rule_list_mip_round_trip(tmp_path, heart):
    X, y = heart
    est = RuleListMIPClassifier(c=0.01, max_rules=2, backend="cpsat", workers=1, time_limit=4,
                                binarizer=FeatureBinarizer(n_thresholds=3, missing="indicator")).fit(X, y)
    saved, _ = _check_round_trip(tmp_path, est, X)
    Xb = _training_binary(est, X)
    y01 = (y == est.classes_[1]).astype(int)
    obj = (saved.model.predict(Xb) != y01).mean() + 0.01 * saved.model.n_rules
    assert obj == pytest.approx(est.certificate_.objective, abs=1e-9)


@pytest.mark.parametrize("form", ["dnf", "cnf"])
def test_brcg_round_trip_and_hamming_loss_recomputed(tmp_path, heart, form):
    X, y = heart
    est = BooleanRuleCGClassifier(complexity_bound=8, form=form, 
                                  random_state=0,
                                  binarizer=FeatureBinarizer(n_thresholds=4, missing="category"), solver_options={'max_iter': 5, 'close_gap': False}).fit(X, y)
    saved, doc = _check_round_trip(tmp_path, est, X)
    assert isinstance(saved.model, RuleSet) and doc["rules"]["form"] == form
    Xb = _training_binary(est, X)
    y01 = (y == est.classes_[1]).astype(int)
    score = ruleset_objective_xy(saved.model, Xb, y01)
    assert score.hamming_loss == pytest.approx(est.certificate_.objective)


@pytest.mark.parametrize("cls", [FallingRuleListClassifier, SoftFallingRuleListClassifier])
def test_falling_round_trip_and_objective_recomputed(tmp_path, heart, cls):
    X, y = heart
    est = cls(w=2.0, C=0.01, iterations=100, time_limit=3, node_limit=2000,
              binarizer=FeatureBinarizer(n_thresholds=4, missing="indicator")).fit(X, y)
    saved, doc = _check_round_trip(tmp_path, est, X)
    assert doc["kind"] == "FallingRuleList"
    # recompute the objective from the loaded list on the mined training problem
    from rulecert.mining.fpgrowth import mine_fpgrowth
    Xb = _training_binary(est, X)
    y01 = (y == est.classes_[1]).astype(np.int8)
    problem = mine_fpgrowth(Xb, y01, est.binary_feature_names_, max_predicates=est.max_predicates,
                            min_support=est.min_support).to_problem(y01)
    if cls is FallingRuleListClassifier:
        score = frl_objective(problem, saved.model, 2.0, 0.01)
    else:
        score = soft_frl_objective(problem, saved.model, 2.0, 0.01, 0.5)
    assert score.objective == pytest.approx(est.certificate_.objective, abs=1e-9)


def test_pipeline_round_trip_and_bad_documents(tmp_path, compas):
    X, y = compas
    pipe = make_pipeline(FeatureBinarizer(n_thresholds=3, negations=False),
                         CorelsClassifier(c=0.01, max_card=1)).fit(X, y)
    saved = load_model(save_model(tmp_path / "p.json", pipe) and tmp_path / "p.json")
    np.testing.assert_array_equal(saved.predict(X), pipe.predict(X))
    np.testing.assert_allclose(saved.predict_proba(X), pipe.predict_proba(X))
    with pytest.raises(ValueError, match="lack the model's input columns"):
        saved.predict(X.drop(columns=["age"]))
    again = from_json(to_json(pipe))
    np.testing.assert_array_equal(again.predict(X), pipe.predict(X))
    assert again.document["features"] == saved.document["features"]
    with pytest.raises(ValueError, match="not a JSON text"):
        from_json("{")
    doc = json.loads((tmp_path / "p.json").read_text())
    (tmp_path / "v.json").write_text(json.dumps({**doc, "version": 99}))
    with pytest.raises(ValueError, match="version 99"):
        load_model(tmp_path / "v.json")
    (tmp_path / "o.json").write_text(json.dumps({"type": "RuleList"}))
    with pytest.raises(ValueError, match="not a rulecert model file"):
        load_model(tmp_path / "o.json")
    (tmp_path / "t.txt").write_text("not json")
    with pytest.raises(ValueError, match="not a JSON file"):
        load_model(tmp_path / "t.txt")
    with pytest.raises(ValueError, match="not a fitted rulecert estimator"):
        save_model(tmp_path / "x.json", CorelsClassifier())


# ---- the command line ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def heart_csv(heart, tmp_path_factory):
    X, y = heart
    d = tmp_path_factory.mktemp("heart")
    df = X.assign(disease=np.where(y == "disease", "yes", "no"))
    df.iloc[:200].to_csv(d / "train.csv", index=False)
    df.iloc[200:].to_csv(d / "test.csv", index=False)
    return d


def test_corels_save_model_then_predict(heart_csv, tmp_path, capsys):
    m, out = tmp_path / "m.json", tmp_path / "preds.csv"
    assert main(["corels", "--data", str(heart_csv / "train.csv"), "--c", "0.01", "--max-card", "1",
                 "--missing", "indicator", "--quiet", "--save-model", str(m)]) == 0
    text = capsys.readouterr().out
    assert "then predict yes" in text or "then predict no" in text      # the real labels
    assert "P(yes)=" in text
    assert main(["predict", "--model", str(m), "--data", str(heart_csv / "test.csv"),
                 "--out", str(out), "--proba"]) == 0
    err = capsys.readouterr().err
    assert "accuracy on 'disease'" in err
    preds = pd.read_csv(out)
    assert list(preds.columns) == ["row", "prediction", "P(yes)"] and len(preds) == 103
    saved = load_model(m)
    test = pd.read_csv(heart_csv / "test.csv")
    np.testing.assert_array_equal(preds["prediction"], saved.predict(test))
    np.testing.assert_allclose(preds["P(yes)"], saved.predict_proba(test)[:, 1])
    # the CLI's model predicts the training data as its fit did: objective recomputed
    train = pd.read_csv(heart_csv / "train.csv")
    doc = json.loads(m.read_text())
    mistakes = int((saved.predict(train) != train["disease"]).sum())
    assert mistakes / len(train) + 0.01 * len(doc["rules"][:-1]) == pytest.approx(
        doc["meta"]["certificate"]["objective"], abs=1e-12)


def test_brcg_and_frl_save_model_and_json_text(heart_csv, tmp_path, capsys):
    m = tmp_path / "b.json"
    assert main(["brcg", "--data", str(heart_csv / "train.csv"), "--C", "6", "--option", "max_iter=3",
                 "--option", "close_gap=false", "--missing", "drop", "--json", "--save-model", str(m)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["rules_text"].startswith("predict yes if") or out["rules_text"].startswith("predict no if")
    assert main(["predict", "--model", str(m), "--data", str(heart_csv / "test.csv"),
                 "--missing", "drop", "--json"]) == 0
    res = json.loads(capsys.readouterr().out)
    assert len(res["predictions"]["prediction"]) == 100 and res["accuracy"] is not None
    assert res["rules_text"] == out["rules_text"]
    f = tmp_path / "f.json"
    assert main(["frl", "--data", str(heart_csv / "train.csv"), "--iterations", "50",
                 "--time-limit", "2", "--missing", "indicator", "--json", "--save-model", str(f)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert "P(yes)" in out["rules_text"] and out["model"]["text"]
    assert load_model(f).predict(pd.read_csv(heart_csv / "test.csv")).shape == (103,)


def test_missing_policy_on_every_subcommand(heart_csv, capsys):
    data = str(heart_csv / "train.csv")
    runs = [["corels", "--data", data, "--c", "0.05", "--max-card", "1", "--node-limit", "2000",
             "--quiet"],
            ["frl", "--data", data, "--iterations", "20", "--time-limit", "1"],
            ["brcg", "--data", data, "--C", "4", "--option", "max_iter=1", "--option", "close_gap=false"],
            ["crosscheck", "--data", data, "--c", "0.05", "--max-rules", "1", "--max-card", "1"],
            ["rashomon", "--data", data, "--c", "0.05", "--max-card", "1", "--max-length", "1"]]
    for argv in runs:               # default --missing error: one line, before any work
        assert main(argv) == 2, argv[0]
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith(f"rulecert {argv[0]}: error: column 'ca'")
        assert "missing value(s)" in err[0] and "--missing" in err[0]
    for argv in runs[:3]:
        assert main(argv + ["--missing", "drop"]) == 0, argv[0]
        assert "dropped 3 of 200 rows" in capsys.readouterr().err
        assert main(argv + ["--missing", "category", "--json"]) == 0, argv[0]
        out = capsys.readouterr().out
        assert "is missing" in out or "thal" in out or "ca" in out


def test_predict_errors_are_one_line_with_exit_2(heart_csv, tmp_path, capsys):
    test = str(heart_csv / "test.csv")
    cases = [(["--model", str(tmp_path / "none.json"), "--data", test], "model file not found"),
             (["--model", test, "--data", test], "not a JSON file")]
    m = tmp_path / "m.json"
    assert main(["corels", "--data", str(heart_csv / "train.csv"), "--c", "0.05", "--quiet",
                 "--max-card", "1", "--missing", "drop", "--save-model", str(m)]) == 0
    capsys.readouterr()
    pd.read_csv(test).drop(columns=["age"]).to_csv(tmp_path / "noage.csv", index=False)
    cases += [(["--model", str(m), "--data", str(tmp_path / "noage.csv")], "lack the model's input columns ['age']"),
              (["--model", str(m), "--data", test], "column 'ca' of"),
              (["--model", str(m), "--data", str(tmp_path / "nothing.csv")], "no such file"),
              (["--model", str(m), "--data", test, "--out", str(tmp_path / "no" / "p.csv")], "does not exist")]
    for argv, msg in cases:
        assert main(["predict", *argv]) == 2, msg
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("rulecert predict: error: ") and msg in err[0], err
    assert main(["corels", "--data", str(heart_csv / "train.csv"), "--save-model",
                 str(tmp_path / "no" / "m.json")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_brcg_accepts_a_corels_stem_and_prints_its_labels(compas_stem, capsys):
    assert main(["brcg", "--data", str(compas_stem), "--C", "4", "--option", "max_iter=2",
                 "--option", "close_gap=false"]) == 0
    out = capsys.readouterr().out
    assert "single-item antecedents as binary features" in out
    assert "predict Yes if" in out and "else predict No" in out     # the .label file's names


def test_corels_stem_prints_its_labels(compas_stem, capsys):
    assert main(["corels", "--data", str(compas_stem), "--c", "0.02", "--max-length", "1",
                 "--quiet"]) == 0
    cap = capsys.readouterr()
    assert "predict Yes" in cap.out and "predict No" in cap.out


def test_estimator_text_names_the_classes_without_numpy_reprs(heart):
    X, y = heart
    est = BooleanRuleCGClassifier(complexity_bound=5, random_state=0,
                                  binarizer=FeatureBinarizer(n_thresholds=3, missing="indicator"), solver_options={'max_iter': 2, 'close_gap': False})
    text = str(est.fit(X, (y == "disease").astype(np.int8)))
    assert "predict 1 if" in text and "else predict 0" in text and "np.int8" not in text
    text = str(est.fit(X, y))
    assert "predict healthy if" in text or "predict disease if" in text


@pytest.mark.slow   # over 10 s on 2 cores: run with -m slow
def test_one_spelling_of_literals_everywhere(compas_stem, tmp_path, capsys):
    from rulecert.mining.antecedents import conjunction_name, literal_name
    from rulecert.models.antecedent import corels_name_text, literal_text
    assert literal_text("age", "<=", 25.5) == "age <= 25.5"
    assert literal_text("priors", "==", ">3") == "priors > 3"
    assert literal_text("priors", "==", "=0") == "priors == 0"
    assert literal_text("priors", "!=", ">3") == "not (priors > 3)"
    assert literal_text("ca", "is missing") == "ca is missing"
    assert literal_name("age == 18-20", 0) == "not (age == 18-20)" and literal_name("smoker", 0) == "not smoker"
    assert conjunction_name(["a", "not b"]) == "a and not b"
    assert corels_name_text("sex:Male,juvenile-crimes:>0") == "sex == Male and juvenile-crimes > 0"
    # the raw CORELS table through the binarizer and the CORELS files read the same
    raw = pd.read_csv(str(compas_stem) + ".csv")
    names = FeatureBinarizer(negations=False).fit(raw.drop(columns=[raw.columns[-1]])).get_feature_names_out()
    assert {"priors > 3", "priors == 0", "age == 18-20", "sex == Male"} <= set(names)
    assert main(["corels", "--data", str(compas_stem), "--c", "0.005", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "(priors > 3) then predict Yes" in out and ":" not in out.split("\n\n")[1].split("mistakes")[0]
    # thresholds at the data's precision: integer ages give one decimal at most
    X, _ = datasets.load_compas()
    fb = FeatureBinarizer(n_thresholds=9).fit(X[["age", "priors_count"]])
    for t in np.concatenate(list(fb.thresholds_.values())):
        assert t == round(t, 1)
