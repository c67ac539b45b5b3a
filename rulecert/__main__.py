"""``python -m rulecert``: the ``rulecert`` command (:mod:`rulecert.cli`)."""
from .cli import run_command

if __name__ == "__main__":
    run_command()
