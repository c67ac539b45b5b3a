"""Tests for rulecert.datasets: loaders match the data README; locating and checking files."""
from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest

import rulecert.datasets as D

try:
    HOME = D.data_home()
except FileNotFoundError:
    HOME = None
needs_data = pytest.mark.skipif(HOME is None, reason="rulecert datasets not found (set "
                                "RULECERT_DATA to the folder holding them)")

# raw-file columns that are not features: label, plus id (wdbc) and selector (liver)
NON_FEATURE_COLUMNS = {"wdbc": 2, "liver": 2}


def test_registries_are_consistent():
    assert set(D.DATASETS) == set(D.DATASET_INFO)
    for info in D.DATASET_INFO.values():
        for key in info.files:
            assert key in D.FILES
    for f in D.FILES.values():
        assert len(f.md5) == 32 and f.url.startswith("https://")


@needs_data
@pytest.mark.parametrize("name", sorted(D.DATASET_INFO))
def test_loader_matches_readme(name):
    info = D.DATASET_INFO[name]
    X, y = D.load(name, verify=True)          # verify: md5 of every file read
    assert isinstance(X, pd.DataFrame)
    assert y.dtype == np.int8 and set(np.unique(y)) <= {0, 1}
    assert X.shape[0] == y.shape[0] == info.n_rows
    assert round(float(y.mean()), 4) == pytest.approx(info.positive_share, abs=1e-12)
    if name != "compas":                       # compas: a chosen feature subset
        assert X.shape[1] == info.n_columns - NON_FEATURE_COLUMNS.get(name, 1)
    assert X.columns.is_unique


@needs_data
def test_loader_details():
    X, _ = D.load_heart()
    assert int(X.isna().sum().sum()) == 6 and X[["ca", "thal"]].isna().sum().tolist() == [4, 2]
    X, _ = D.load_ilpd()
    assert int(X.isna().sum().sum()) == 4
    _, y = D.load_liver()
    assert int(y.sum()) == 176
    Xs, ys = D.load_liver(target="selector")
    assert "drinks" in Xs.columns and int(ys.sum()) == 145
    with pytest.raises(ValueError, match="target"):
        D.load_liver(target="class")
    X, _ = D.load_pima(zeros_as_missing=True)
    assert int(X["insulin"].isna().sum()) == 374 and int(X["pregnancies"].isna().sum()) == 0
    X, y = D.load_compas(propublica_filter=True)
    assert X.shape[0] == 6172
    X, y = D.load_compas_corels("test", kind="binary")
    assert X.shape == (721, 14) and set(np.unique(X.to_numpy())) <= {0, 1}
    X, _ = D.load_compas_corels("train", kind="categorical")
    assert X.shape == (6489, 7)
    X, y = D.load_bank_full()
    np.testing.assert_array_equal(D.load_bank_full_frl_labels(verify=True), y)
    prob = D.load_compas_corels_problem("train", verify=True)
    assert prob.n_antecedents == 155 and prob.n_samples == 6489
    np.testing.assert_array_equal(prob.y, D.load_compas_corels("train")[1])
    X, y = D.load_wdbc()
    assert list(X.columns) == D.WDBC_FEATURES
    X, _ = D.load_tictactoe()
    assert set(np.unique(X.to_numpy())) == {"x", "o", "b"}
    with pytest.raises(KeyError, match="unknown dataset"):
        D.load("mushroom")


def test_data_home_resolution(tmp_path, monkeypatch):
    monkeypatch.setenv("RULECERT_DATA", str(tmp_path))
    assert D.data_home() == tmp_path
    with pytest.raises(FileNotFoundError, match="RULECERT_DATA"):
        D.load_banknote()                      # folder exists, file missing
    monkeypatch.setenv("RULECERT_DATA", str(tmp_path / "absent"))
    with pytest.raises(FileNotFoundError, match="RULECERT_DATA"):
        D.data_home()
    monkeypatch.delenv("RULECERT_DATA")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(D, "_checkout_data", lambda: tmp_path / "no_checkout")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "no_cache"))
    _skip_if_data_above(tmp_path)
    with pytest.raises(FileNotFoundError, match="Set the environment variable RULECERT_DATA"):
        D.data_home()
    assert D.data_home(tmp_path) == tmp_path


# ---- where the data is looked for (RULECERT_DATA, then shared/data from the working
# directory up, then beside the package source, then the cache) --------------------------------
def _fake_data(folder):
    """A ``shared/data``-like folder holding one registered dataset's folder."""
    (folder / "liver_bupa").mkdir(parents=True)
    return folder


def _skip_if_data_above(path):
    """The search walks up to /: a real shared/data above tmp_path would change the answer."""
    for d in path.resolve().parents:
        if D._holds_datasets(d / "shared" / "data"):
            pytest.skip(f"{d / 'shared' / 'data'} holds datasets; the lookup would find it")


@pytest.fixture
def no_data_env(tmp_path, monkeypatch):
    """RULECERT_DATA unset, no data beside the package source, an empty cache."""
    monkeypatch.delenv("RULECERT_DATA", raising=False)
    monkeypatch.setattr(D, "_checkout_data", lambda: tmp_path / "pkg" / "shared" / "data")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _skip_if_data_above(tmp_path)
    return tmp_path


def test_lookup_finds_shared_data_beside_the_working_directory(no_data_env, monkeypatch):
    root = no_data_env / "root"
    data = _fake_data(root / "shared" / "data")
    checkout = root / "main"
    (checkout / "notebooks" / "deeper").mkdir(parents=True)
    for cwd in (root, checkout, checkout / "notebooks", checkout / "notebooks" / "deeper"):
        monkeypatch.chdir(cwd)
        assert D.data_home() == data.resolve(), cwd


def test_lookup_takes_the_nearest_shared_data_that_holds_datasets(no_data_env, monkeypatch):
    root = no_data_env / "root"
    outer = _fake_data(root / "shared" / "data")
    inner = _fake_data(root / "main" / "shared" / "data")
    (root / "main" / "sub" / "shared" / "data").mkdir(parents=True)   # empty: passed over
    monkeypatch.chdir(root / "main" / "sub")
    assert D.data_home() == inner.resolve()
    monkeypatch.chdir(root)
    assert D.data_home() == outer.resolve()


def test_lookup_order_env_then_cwd_then_package_then_cache(no_data_env, monkeypatch):
    tmp = no_data_env
    cwd_data = _fake_data(tmp / "work" / "shared" / "data")
    pkg_data = _fake_data(tmp / "pkg" / "shared" / "data")
    env_data = _fake_data(tmp / "env")
    cache = tmp / "cache" / "rulecert" / "data"
    cache.mkdir(parents=True)
    elsewhere = tmp / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(tmp / "work")
    monkeypatch.setenv("RULECERT_DATA", str(env_data))
    assert D.data_home() == env_data                       # 1. the variable
    monkeypatch.delenv("RULECERT_DATA")
    assert D.data_home() == cwd_data.resolve()             # 2. beside the working directory
    monkeypatch.chdir(elsewhere)
    assert D.data_home() == pkg_data                       # 3. beside the package source
    shutil.rmtree(pkg_data)
    assert D.data_home() == cache                          # 4. the download cache
    monkeypatch.chdir(tmp / "work")
    assert D.data_home(env_data) == env_data               # the argument beats them all


def test_lookup_error_lists_every_place_looked_at(no_data_env, monkeypatch):
    cwd = no_data_env / "a" / "b"
    cwd.mkdir(parents=True)
    monkeypatch.chdir(cwd)
    with pytest.raises(FileNotFoundError) as err:
        D.data_home()
    msg = str(err.value)
    assert "Set the environment variable RULECERT_DATA" in msg
    for d in (cwd.resolve(), *cwd.resolve().parents):
        assert str(d / "shared" / "data") in msg, d
    assert str(no_data_env / "pkg" / "shared" / "data") in msg
    assert str(no_data_env / "cache" / "rulecert" / "data") in msg
    with pytest.raises(FileNotFoundError, match="RULECERT_DATA"):
        D.load_liver()                                 # a loader says the same


def test_lookup_a_missing_rulecert_data_is_an_error_naming_it(no_data_env, monkeypatch):
    data = _fake_data(no_data_env / "shared" / "data")
    monkeypatch.chdir(no_data_env)
    assert D.data_home() == data.resolve()
    absent = no_data_env / "not_there"
    monkeypatch.setenv("RULECERT_DATA", str(absent))
    with pytest.raises(FileNotFoundError) as err:      # not passed over for the cwd's data
        D.data_home()
    assert f"RULECERT_DATA={str(absent)!r} is not a directory" in str(err.value)


@needs_data
def test_verify_detects_a_changed_file(tmp_path):
    rel = D.FILES["liver"].path
    dest = tmp_path / rel
    dest.parent.mkdir(parents=True)
    shutil.copy(HOME / rel, dest)
    X, y = D.load_liver(data_home=tmp_path, verify=True)
    assert X.shape == (345, 5)
    with open(dest, "a") as fh:
        fh.write("1,2,3,4,5,6.0,1\n")
    with pytest.raises(ValueError, match="md5 mismatch"):
        D.load_liver(data_home=tmp_path, verify=True)


def test_fetch_checks_md5_offline(tmp_path, monkeypatch):
    """fetch() through a file:// URL (no network): saved only when the md5 matches."""
    src = tmp_path / "src.data"
    src.write_text("1,2,3,4,5,6.0,1\n2,3,4,5,6,0.5,2\n")
    import hashlib
    good = hashlib.md5(src.read_bytes()).hexdigest()
    files = dict(D.FILES)
    files["liver"] = D.DataFile("liver_bupa/bupa.data", src.as_uri(), good)
    monkeypatch.setattr(D, "FILES", files)
    home = tmp_path / "cache"
    assert D.fetch("liver", home) == home
    X, y = D.load_liver(data_home=home, verify=True)
    assert X.shape == (2, 5) and y.tolist() == [1, 0]
    files["liver"] = D.DataFile("liver_bupa/bupa.data", src.as_uri(), "0" * 32)
    with pytest.raises(ValueError, match="md5"):
        D.fetch("liver", tmp_path / "other")
    assert not (tmp_path / "other" / "liver_bupa" / "bupa.data").exists()
