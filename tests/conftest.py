import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def data_dir() -> Path:
    return Path(os.environ.get("RULECERT_DATA", REPO.parent / "shared" / "data"))


@pytest.fixture(scope="session")
def shared_data() -> Path:
    d = data_dir()
    if not (d / "compas").exists():
        pytest.skip(f"shared datasets not found at {d} (set RULECERT_DATA)")
    return d


@pytest.fixture(scope="session")
def compas_stem(shared_data) -> Path:
    return shared_data / "compas" / "corels_binarized" / "compas_train"
