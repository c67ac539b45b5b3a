"""Binarization, antecedent mining and the CORELS file format."""
from .corels_format import read_corels, read_label_file, read_minor, write_corels

__all__ = ["read_corels", "read_label_file", "read_minor", "write_corels"]
