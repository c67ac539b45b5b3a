"""The rulecert command: text and JSON output, errors before work."""
import pytest
import json

import numpy as np
import pandas as pd

from rulecert.cli import main


def test_corels_json_on_corels_files(compas_stem, capsys):
    rc = main(["corels", "--data", str(compas_stem), "--c", "0.02", "--json", "--quiet"])
    assert rc == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("objective", "lower_bound", "gap", "proven_optimal", "termination", "mistakes",
                "n_samples", "n_rules", "rules", "nodes_expanded", "wall_time_s"):
        assert key in out
    assert out["proven_optimal"] and out["termination"] == "optimal"
    assert (out["mistakes"], out["n_rules"], out["n_samples"]) == (2365, 1, 6489)
    assert abs(out["objective"] - (2365 / 6489 + 0.02)) < 1e-12


def test_corels_text_on_csv_with_real_names(tmp_path, capsys):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"smoker": rng.integers(0, 2, 200), "old": rng.integers(0, 2, 200)})
    df["sick"] = (df["smoker"] & df["old"]).astype(int)
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    assert main(["corels", "--data", str(path), "--c", "0.01", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "smoker and old" in out or "old and smoker" in out
    assert "proven optimal  : True" in out


def test_corels_errors(tmp_path, capsys):
    assert main(["corels", "--data", str(tmp_path / "nothing"), "--c", "0.01"]) == 2
    assert "neither a CSV file nor a CORELS file stem" in capsys.readouterr().err
    df = pd.DataFrame({"a": [0, 1, 1], "y": [1, 1, 1]})
    df.to_csv(tmp_path / "one.csv", index=False)
    assert main(["corels", "--data", str(tmp_path / "one.csv"), "--c", "0.01"]) == 2
    assert "two values" in capsys.readouterr().err
    df = pd.DataFrame({"a": [0, 1, 1, 0], "y": [1, 0, 1, 0]})
    df.to_csv(tmp_path / "ok.csv", index=False)
    assert main(["corels", "--data", str(tmp_path / "ok.csv"), "--c", "1.5"]) == 2
    assert "c must be in [0, 1)" in capsys.readouterr().err


@pytest.mark.parametrize("command", [None, "corels", "crosscheck", "frl", "brcg", "rashomon",
                                     "predict", "run", "report"])
def test_help_of_every_subcommand_prints(command, capsys):
    from rulecert.cli import SUBCOMMANDS, main
    assert command is None or command in SUBCOMMANDS
    with pytest.raises(SystemExit) as exc:
        main(([command] if command else []) + ["--help"])
    assert exc.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: rulecert")
    if command not in (None, "predict", "run", "report"):
        assert "--memory-limit-mb" in out and "50% of the machine" in out


def _headerless(tmp_path, n=120):
    """A numeric CSV without a header row (as UCI's pima file): y = x0 > 0.5 and x1 > 0.5."""
    rng = np.random.default_rng(1)
    X = rng.random((n, 3)).round(3)
    y = ((X[:, 0] > 0.5) & (X[:, 1] > 0.5)).astype(int)
    path = tmp_path / "d.data"
    np.savetxt(path, np.column_stack([X, y]), delimiter=",", fmt=["%.3f"] * 3 + ["%d"])
    return path, X, y


def test_headerless_numeric_csv_keeps_every_row_and_names_columns(tmp_path, capsys):
    path, X, y = _headerless(tmp_path)
    model = tmp_path / "m.json"
    assert main(["brcg", "--data", str(path), "--C", "5", "--json", "--quiet",
                 "--save-model", str(model)]) == 0
    cap = capsys.readouterr()
    assert "read as data (no header row)" in cap.err
    out = json.loads(cap.out)
    assert f"{len(y)} rows, target 'x3'" in out["data"]   # the first row is data, not names
    assert set(out["rules_text"].split()) & {"x0", "x1"} and "x2" not in out["rules_text"]
    assert main(["predict", "--model", str(model), "--data", str(path), "--json"]) == 0
    pred = json.loads(capsys.readouterr().out)
    assert pred["target"] == "x3" and len(pred["predictions"]["row"]) == len(y)
    mistakes = int(np.sum(np.asarray(pred["predictions"]["prediction"]).astype(int) != y))
    assert mistakes == out["certificate"]["objective"]   # the saved model, recomputed
    # --header yes reads the first row as names (one row fewer, the target named by a value)
    assert main(["brcg", "--data", str(path), "--C", "5", "--json", "--quiet",
                 "--header", "yes"]) == 0
    assert f"{len(y) - 1} rows" in json.loads(capsys.readouterr().out)["data"]


def test_header_row_with_names_is_read_as_names(tmp_path, capsys):
    from rulecert.cli._data import read_csv_frame
    path, X, y = _headerless(tmp_path, 10)
    named = tmp_path / "named.csv"
    named.write_text("a,b,c,y\n" + path.read_text())
    assert list(read_csv_frame(str(named)).columns) == ["a", "b", "c", "y"]
    assert len(read_csv_frame(str(named))) == 10
    df = read_csv_frame(str(path), "no")
    assert list(df.columns) == ["x0", "x1", "x2", "x3"] and len(df) == 10
    assert capsys.readouterr().err == ""           # explicit --header: nothing to say
