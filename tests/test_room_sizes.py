"""Rooms stay small: no module over 600 lines and no function over 100 lines in the packages."""

from __future__ import annotations

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGES = ("vision", "beachscore", "hall", "scoring", "calibration", "web", "hardware", "tournament")
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 100


def oversized(root: str) -> list[str]:
    """``path``, ``path:function`` for each module and function of the packages under ``root`` over the limits."""
    found = []
    for package in PACKAGES:
        for folder, _, names in os.walk(os.path.join(root, package)):
            for name in sorted(n for n in names if n.endswith(".py")):
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8") as f:
                    source = f.read()
                rel = os.path.relpath(path, root)
                if source.count("\n") > MAX_MODULE_LINES:
                    found.append(rel)
                for node in ast.walk(ast.parse(source)):
                    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) \
                            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES:
                        found.append(f"{rel}:{node.name}")
    return found


def test_long_rooms_are_found(tmp_path):
    os.makedirs(tmp_path / "vision")
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    (tmp_path / "vision" / "long.py").write_text(f"def long():\n{body}\n")
    assert oversized(str(tmp_path)) == ["vision/long.py:long"]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_long_module_or_function(package):
    assert not [p for p in oversized(ROOT) if p.startswith(package + "/")]
