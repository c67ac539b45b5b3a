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
