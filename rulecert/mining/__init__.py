"""Binarization, antecedent mining and the CORELS file format."""
from .antecedents import AntecedentSet, mine_antecedents
from .binarize import FeatureBinarizer
from .corels_format import read_corels, read_label_file, read_minor, write_corels
from .fpgrowth import fpgrowth_itemsets, mine_fpgrowth

__all__ = ["read_corels", "read_label_file", "read_minor", "write_corels",
           "FeatureBinarizer", "AntecedentSet", "mine_antecedents", "mine_fpgrowth",
           "fpgrowth_itemsets"]
