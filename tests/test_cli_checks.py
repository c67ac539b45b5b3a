"""The command's checks before work and its one-line errors: output paths checked before any
solve, OS errors naming the path (exit 2), model files validated on load, a complexity bound
whose table would not fit, the first compile announced."""
import json
import math
import os

import numpy as np
import pandas as pd
import pytest

from rulecert.cli import main
from rulecert.export import load_model, save_model
from rulecert.models import Antecedent, RuleList, RuleSet


@pytest.fixture
def csv(tmp_path):
    """A tiny binary CSV: y = a and b, with a little noise."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.integers(0, 2, 40), "b": rng.integers(0, 2, 40),
                       "c": rng.integers(0, 2, 40)})
    df["y"] = ((df.a & df.b) ^ (rng.random(40) < 0.1)).astype(int)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    return path


def _one_error_line(capsys, command):
    cap = capsys.readouterr()
    err = cap.err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"rulecert {command}: error: "), cap.err
    return cap.out, err[0]


# ---- A: output paths before any work ------------------------------------------------------------
@pytest.mark.parametrize("argv, message", [
    (["corels", "--plot", "{tmp}/nope/h.png"], "--plot '{tmp}/nope/h.png': the folder {tmp}/nope does not exist"),
    (["corels", "--plot", "{tmp}"], "--plot '{tmp}': is a folder"),
    (["brcg", "--save-model", "{tmp}/d.csv/m.json"], "{tmp}/d.csv is not a folder"),
    (["frl", "--save-model", "{tmp}"], "--save-model '{tmp}': is a folder"),
    (["predict", "--model", "{tmp}/m.json", "--out", "{tmp}/no/p.csv"], "the folder {tmp}/no does not exist"),
    (["run", "{tmp}/s.toml", "--results", "{tmp}/d.csv"], "--results '{tmp}/d.csv': is a file, not a folder"),
    (["report", "{tmp}/s.toml", "--plots", "{tmp}/d.csv/p"], "--plots '{tmp}/d.csv/p': {tmp}/d.csv is not a folder"),
])
def test_output_paths_are_checked_before_any_work(argv, message, csv, monkeypatch, capsys):
    """A bad output path is one line before anything is read or solved (the data reader and
    the study loader are never reached)."""
    import rulecert.cli._data as data
    import rulecert.experiments.study as study

    def no_work(*a, **k):
        raise AssertionError("work started before the output paths were checked")

    monkeypatch.setattr(data, "read_csv_frame", no_work)
    monkeypatch.setattr(study, "load_study", no_work)
    tmp = str(csv.parent)
    argv = [a.format(tmp=tmp) for a in argv]
    if argv[0] not in ("run", "report"):
        argv += ["--data", str(csv)]
    assert main(argv) == 2
    out, err = _one_error_line(capsys, argv[0])
    assert message.format(tmp=tmp) in err and out == ""


def test_a_folder_that_takes_no_file_is_refused(csv, monkeypatch, capsys):
    """A folder the process cannot write in (as root, chmod does not stop a write: the OS's
    refusal is simulated at the probe file) is refused before any work."""
    import tempfile

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "TemporaryFile", refuse)
    assert main(["corels", "--data", str(csv), "--save-model", str(csv.parent / "m.json")]) == 2
    _, err = _one_error_line(capsys, "corels")
    assert f"cannot write in the folder {csv.parent}: Permission denied" in err


# ---- B: OS errors are one line naming the path ---------------------------------------------------
@pytest.mark.parametrize("command", ["corels", "brcg", "frl", "crosscheck", "rashomon"])
def test_a_folder_as_data_is_one_line(command, tmp_path, capsys):
    extra = ["--c", "0.05"] if command == "crosscheck" else []
    assert main([command, "--data", str(tmp_path), *extra]) == 2
    _, err = _one_error_line(capsys, command)
    assert err.endswith(f"--data '{tmp_path}': Is a directory")


def test_a_damaged_or_unreadable_data_file_is_named(tmp_path, capsys):
    (tmp_path / "bytes.csv").write_bytes(bytes(range(128, 256)) * 20)
    assert main(["corels", "--data", str(tmp_path / "bytes.csv")]) == 2
    _, err = _one_error_line(capsys, "corels")
    assert f"--data '{tmp_path / 'bytes.csv'}': not UTF-8 text" in err
    (tmp_path / "ragged.csv").write_text("a,b,y\n1,0,1\n0,1\n1,1,0,5\n")
    assert main(["corels", "--data", str(tmp_path / "ragged.csv")]) == 2
    _, err = _one_error_line(capsys, "corels")
    assert f"--data '{tmp_path / 'ragged.csv'}': not a CSV table" in err


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("command, flag, name", [
    ("corels", "--plot", "h.png"), ("corels", "--save-model", "m.json"),
    ("frl", "--plot", "h.png"), ("frl", "--save-model", "m.json"),
    ("brcg", "--plot", "h.png"), ("brcg", "--save-model", "m.json"),
    ("crosscheck", "--plot", "h.png"), ("rashomon", "--plot", "h.png"),
])
def test_a_write_that_fails_loses_no_result(command, flag, name, csv, capsys):
    """The result is printed before --plot / --save-model are written: a write that fails (a
    full disk: the file is a link to /dev/full, which passes the check before work) is one
    line naming the option and the path, exit 2, with the whole result on stdout."""
    target = csv.parent / name
    target.symlink_to("/dev/full")
    extra = {"crosscheck": ["--c", "0.05"], "corels": ["--c", "0.05"],
             "rashomon": ["--c", "0.05"]}.get(command, [])
    assert main([command, "--data", str(csv), *extra, "--quiet", "--json",
                 flag, str(target)]) == 2
    out, err = _one_error_line(capsys, command)
    assert err.endswith(f"{flag} '{target}': No space left on device")
    key = {"corels": "objective", "frl": "model", "brcg": "ruleset", "crosscheck": "verdict",
           "rashomon": "lists"}[command]
    assert json.loads(out)[key]                      # the result, whole, before the write


def test_the_files_are_written_after_the_result(csv, monkeypatch, tmp_path):
    """main writes the queued files once the subcommand has returned (its result printed):
    a subcommand that is still printing has written nothing."""
    import rulecert.cli.corels as corels
    run = corels.run

    def run_and_look(args):
        code = run(args)
        assert not (tmp_path / "m.json").exists() and not (tmp_path / "h.png").exists()
        return code

    monkeypatch.setattr(corels, "run", run_and_look)
    assert main(["corels", "--data", str(csv), "--c", "0.05", "--quiet",
                 "--save-model", str(tmp_path / "m.json"), "--plot", str(tmp_path / "h.png")]) == 0
    assert load_model(tmp_path / "m.json") is not None and (tmp_path / "h.png").stat().st_size


def test_brcg_fits_in_what_the_command_clock_leaves(csv, capsys):
    """brcg's --time-limit counts from the command's start (imports, reading, binarizing), as
    the other subcommands': a command started 20 s ago with a 10 s limit stops while it reads
    the data, says so, and reports a limit stop without a model, never an optimum."""
    import time
    assert main(["brcg", "--data", str(csv), "--time-limit", "10", "--quiet", "--json"],
                started=time.perf_counter() - 20) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["termination"] == "time_limit" and out["proven_optimal"] is False
    assert "reached while reading" in out["message"] and "certificate" not in out


# ---- C: model files validated on load -----------------------------------------------------------
def _rule_list_doc(tmp_path):
    rl = RuleList([Antecedent("a and b", ((0, 1), (1, 1)))], [1], 0, counts=[(9, 1), (2, 8)])
    return save_model(tmp_path / "m.json", rl, feature_names=["a", "b", "c"],
                      classes=["no", "yes"])


def _binarizer_doc(tmp_path):
    from rulecert.mining import FeatureBinarizer
    X = pd.DataFrame({"age": [20, 30, 40, 50, 60, 70], "sex": ["M", "F"] * 3})
    fb = FeatureBinarizer(n_thresholds=2).fit(X)
    rl = RuleList([Antecedent(fb.get_feature_names_out()[0], ((0, 1),))], [1], 0)
    return save_model(tmp_path / "b.json", rl, binarizer=fb, classes=[0, 1])


def _set(doc, path, value):
    doc = json.loads(json.dumps(doc))
    *head, last = path
    node = doc
    for k in head:
        node = node[k]
    node[last] = value
    return doc


LITERAL = ("model", "rules", 0, "antecedent", "literals", 0)


@pytest.mark.parametrize("path, value, message", [
    (LITERAL + (0,), -1, "rules[0].antecedent.literals[0] column: expected an integer >= 0, got -1"),
    (LITERAL + (0,), 4.7, "literals[0] column: expected an integer >= 0, got 4.7"),
    (LITERAL + (0,), 3, "literal 0 reads column 3, but the file defines 3 binary columns"),
    (LITERAL + (1,), 2, "literals[0] value: expected an integer in [0, 1], got 2"),
    (LITERAL + (1,), True, "literals[0] value: expected an integer in [0, 1], got True"),
    (("model", "rules", 0, "prediction"), 3, "rules[0].prediction: expected an integer in [0, 1]"),
    (("model", "default"), 0.5, "default: expected an integer in [0, 1], got 0.5"),
    (("model", "rules", 0, "antecedent", "literals"), None, "no literal definition"),
    (("classes",), ["yes"], "classes: expected the two class labels, got ['yes']"),
    (("classes",), ["a", "b", "c"], "classes: expected the two class labels"),
    (("classes",), ["a", "a"], "classes: expected two different labels"),
    (("features",), [{"text": "a"}], "reads column 1, but the file defines 1 binary columns"),
])
def test_a_model_file_is_checked_against_its_schema(path, value, message, tmp_path):
    doc = _rule_list_doc(tmp_path)
    assert load_model(tmp_path / "m.json").predict(
        pd.DataFrame({"a": [1, 0], "b": [1, 1], "c": [0, 0]})).tolist() == ["yes", "no"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_set(doc, path, value)))
    with pytest.raises(ValueError) as exc:
        load_model(bad)
    assert str(exc.value).startswith(f"{bad}: ") and message in str(exc.value)


@pytest.mark.parametrize("literal, value, message", [
    ("op", "=<", "binarizer.literals[0]: unknown operator '=<'"),
    ("feature", "height", "binarizer.literals[0]: its feature is not one of"),
    ("value", "ten", "binarizer.literals[0]: <= needs a numeric column and a finite threshold"),
])
def test_a_binarizer_literal_is_checked(literal, value, message, tmp_path):
    doc = _binarizer_doc(tmp_path)
    assert doc["binarizer"]["literals"][0]["op"] == "<="
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_set(doc, ("binarizer", "literals", 0, literal), value)))
    with pytest.raises(ValueError, match="binarizer") as exc:
        load_model(bad)
    assert message in str(exc.value)


def test_a_rule_set_literal_is_checked(tmp_path):
    doc = save_model(tmp_path / "s.json", RuleSet([((0, 1),), ((1, 0), (2, 1))]),
                     feature_names=["a", "b", "c"])
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_set(doc, ("model", "clauses", 1, 0), [-1, 0])))
    with pytest.raises(ValueError, match=r"clauses\[1\]\[0\] column: expected an integer >= 0"):
        load_model(bad)


def test_deep_large_and_special_files_are_refused_in_one_line(tmp_path, monkeypatch, capsys):
    import rulecert.export as export
    deep = tmp_path / "deep.json"
    deep.write_text('{"format": "rulecert-model", "version": 1, "model": '
                    + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(ValueError, match="nests too deeply"):
        load_model(deep)
    _rule_list_doc(tmp_path)
    monkeypatch.setattr(export, "MAX_MODEL_BYTES", 100)
    with pytest.raises(ValueError, match="larger than"):
        load_model(tmp_path / "m.json")
    monkeypatch.undo()
    if os.path.exists("/dev/zero"):
        with pytest.raises(ValueError, match="not a regular file"):
            load_model("/dev/zero")
    one = tmp_path / "one.json"
    one.write_text(json.dumps({**json.loads((tmp_path / "m.json").read_text()),
                               "classes": ["yes"]}))
    (tmp_path / "x.csv").write_text("a,b,c\n1,1,0\n")
    for model, message in [(one, "classes: expected the two class labels"),
                           (tmp_path, f"--model '{tmp_path}': Is a directory")]:
        assert main(["predict", "--model", str(model), "--data", str(tmp_path / "x.csv")]) == 2
        _, err = _one_error_line(capsys, "predict")
        assert message in err


# ---- D: sizes that cannot fit, an empty problem --------------------------------------------------
def test_knapsack_table_is_sized_by_what_the_data_can_use(monkeypatch):
    """A complexity bound far above what |P| clauses of D + 1 can use gives the bound of the
    usable size (no C x C table), valid against brute force; above the cell cap the closed
    form (1), weaker and still valid."""
    import rulecert.mipmodels.colgen.bounds as bounds
    from rulecert.mipmodels.colgen import ColGenOptions
    from rulecert.mipmodels.colgen.state import State
    from rulecert.problem import RuleProblem
    from rulecert.reference import brute_force_ruleset
    rng = np.random.default_rng(3)
    X = rng.random((14, 4)) < 0.5
    y = ((X[:, 0] & X[:, 1]) ^ (rng.random(14) < 0.2)).astype(int)
    p = RuleProblem.from_matrix(X, y, [f"f{j}" for j in range(4)])
    _, opt = brute_force_ruleset(X, y, 1e9, 2)
    found = []
    for C in (1e9, 1e5):
        st = State(p, ColGenOptions.of(complexity_bound=C, max_clause_length=2))
        mu = st.a * np.random.default_rng(7).uniform(0.5, 1.0, len(st.P))
        dt = bounds.read_duals(st, 0.0, mu, 0.0, False)
        z = min(float(dt.const + dt.lit * k + dt.v[np.logical_and.reduce(
            st.X[:, list(cl)], axis=1)].sum()) for k, cl in
            [(1, (j,)) for j in range(4)] + [(2, (i, j)) for i in range(4) for j in range(i + 1, 4)])
        b = bounds.knapsack_bound(st, dt, [(2, z)], math.inf)
        assert b <= opt + 1e-9
        found.append(b)
        monkeypatch.setattr(bounds, "KNAPSACK_CELLS", 0)
        weak = bounds.knapsack_bound(st, dt, [(2, z)], math.inf)
        monkeypatch.undo()
        assert weak <= b + 1e-9 and weak >= st.round_bound(dt.lagrangian + len(st.P) * min(0, z))
    assert found[0] == found[1]


def test_brcg_with_a_huge_complexity_bound_runs(csv, capsys):
    assert main(["brcg", "--data", str(csv), "--C", "100000", "--quiet", "--json",
                 "--option", "max_iter=3"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["complexity_bound"] == 100000 and out["certificate"]["lower_bound"] is not None


def test_crosscheck_refuses_a_mip_too_large_before_corels_runs(csv, capsys, monkeypatch):
    """A problem whose MIP is above the backend's size limit even with one position: one
    line, exit 2, before either solver runs (CORELS' result is not computed and lost)."""
    import rulecert.crosscheck as cc
    from rulecert.mipmodels import rulelist
    monkeypatch.setitem(rulelist.MAX_NONZEROS, "highs", 50)
    monkeypatch.setattr(cc, "_corels_reference", lambda *a, **k: pytest.fail("CORELS ran"))
    assert main(["crosscheck", "--data", str(csv), "--c", "0.05", "--quiet"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nonzeros" in err[0] and "1 position), above the highs" in err[0]


# ---- E: the first compile is announced ------------------------------------------------------------
def test_a_compile_is_announced_once(capsys):
    """The first compile of a command prints one line; none once the command is over, none
    for a command that runs no kernel, none with --quiet."""
    from argparse import Namespace

    import numba

    from rulecert.cli._run import announce_compile
    with announce_compile(Namespace(command="corels", quiet=False)):
        assert numba.njit(lambda x: x + 1)(1) == 2
        assert numba.njit(lambda x: x + 2)(1) == 3
    err = capsys.readouterr().err
    assert err.count("rulecert: compiling the search kernels") == 1
    assert numba.njit(lambda x: x + 3)(1) == 4
    for args in (Namespace(command="predict", quiet=False), Namespace(command="frl", quiet=True)):
        with announce_compile(args):
            assert numba.njit(lambda x: x + 4)(1) == 5
    assert capsys.readouterr().err == ""
