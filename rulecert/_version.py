"""The package version, in a module of its own so any layer can read it without importing the
package's public namespace."""
__version__ = "0.1.0"
