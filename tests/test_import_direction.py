"""Imports go one way: web → station; serving builds the station and hands it to web.

Neither the station nor its store imports the web layer or the server; the web layer never
imports the server (issue 13: serving ↔ station ↔ web ↔ web.calibrate imported each other)."""

import ast
import os

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))


def imported(path: str) -> set[str]:
    """Every module a file imports, at any depth of the file (function-level imports too)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
    return out


def files(*folders: str):
    for folder in folders:
        root = os.path.join(REPO, folder)
        if os.path.isfile(root):
            yield root
            continue
        for dirpath, _, names in os.walk(root):
            yield from (os.path.join(dirpath, n) for n in names if n.endswith(".py"))


@pytest.mark.parametrize("path", list(files("beachscore/station", "hardware")),
                         ids=lambda p: os.path.relpath(p, REPO))
def test_station_side_imports_neither_web_nor_the_server(path):
    bad = {m for m in imported(path) if m == "web" or m.startswith("web.") or m.startswith("beachscore.serving")}
    assert not bad, f"{os.path.relpath(path, REPO)} imports {sorted(bad)}"


@pytest.mark.parametrize("path", list(files("web")), ids=lambda p: os.path.relpath(p, REPO))
def test_web_never_imports_the_server(path):
    bad = {m for m in imported(path) if m.startswith("beachscore.serving") or m.startswith("beachscore.cli")}
    assert not bad, f"{os.path.relpath(path, REPO)} imports {sorted(bad)}"


def test_serving_wires_both():
    mods = imported(os.path.join(REPO, "beachscore", "serving.py"))
    assert any(m.startswith("beachscore.station") for m in mods) and any(m.startswith("web") for m in mods)
