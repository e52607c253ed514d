"""Load one of the project's measuring scripts (``scripts/NAME.py``) as a module for its tests."""

import importlib.util
import os

SCRIPTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts")


def load_script(name: str):
    """The module ``scripts/<name>.py``, freshly executed (its ``main`` is not run)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(SCRIPTS, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
