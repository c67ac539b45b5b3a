"""Binarization, antecedent mining and the CORELS file format.

Names are imported on first use, so reading CORELS files does not load scikit-learn or
pandas (which the binarizer needs).
"""
import importlib

_EXPORTS = {
    "read_corels": "corels_format", "read_label_file": "corels_format",
    "read_minor": "corels_format", "write_corels": "corels_format",
    "FeatureBinarizer": "binarize",
    "AntecedentSet": "antecedents", "mine_antecedents": "antecedents",
    "mine_fpgrowth": "fpgrowth", "fpgrowth_itemsets": "fpgrowth",
}
__all__ = list(_EXPORTS)


def __getattr__(name):
    if name in _EXPORTS:
        value = getattr(importlib.import_module(f".{_EXPORTS[name]}", __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(list(globals()) + __all__)
