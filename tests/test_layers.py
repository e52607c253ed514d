"""Imports point one way: the layers contracts of pyproject.toml hold (`lint-imports`), no module
imports the project inside a function, and no two modules import each other, directly or round a loop."""

import ast
import os
import subprocess
import sys

import grimp
import networkx as nx

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
PACKAGES = ("scoring", "tournament", "hardware", "vision", "calibration", "beachscore", "web", "hall")


def lint_imports_command() -> list[str]:
    """The ``lint-imports`` of this Python's environment (the ``test`` extra installs it)."""
    script = os.path.join(os.path.dirname(sys.executable), "lint-imports")
    assert os.path.exists(script), f"{script} is missing: pip install -e '.[test]'"
    return [script, "--no-cache"]


def test_the_layers_contracts_are_kept():
    run = subprocess.run(lint_imports_command(), cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


def project_modules():
    for package in PACKAGES:
        for folder, _, names in os.walk(os.path.join(REPO, package)):
            yield from (os.path.join(folder, n) for n in sorted(names) if n.endswith(".py"))


def imports_in_functions(path: str, root: str = REPO) -> list[str]:
    """``file:line module`` for each import of a project package inside a function body."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found = []
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = ["." * node.level + (node.module or "")] if node.level else [node.module or ""]
            else:
                continue
            found += [f"{os.path.relpath(path, root)}:{node.lineno} {name}" for name in names
                      if name.startswith(".") or name.split(".")[0] in PACKAGES]
    return sorted(set(found))


def test_imports_in_functions_are_found(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("import vision\n\n\ndef f():\n    import os\n    from vision import errors\n"
                    "    from . import sibling\n", encoding="utf-8")
    assert imports_in_functions(str(path), str(tmp_path)) == ["probe.py:6 vision", "probe.py:7 ."]


def test_no_project_import_inside_a_function():
    found = [hit for path in project_modules() for hit in imports_in_functions(path)]
    assert not found, "import these at the top of the module:\n" + "\n".join(found)


def import_graph() -> nx.DiGraph:
    graph = grimp.build_graph(*PACKAGES, cache_dir=None)
    edges = nx.DiGraph()
    for module in graph.modules:
        edges.add_node(module)
        edges.add_edges_from((module, imported) for imported in graph.find_modules_directly_imported_by(module))
    return edges


def test_cycles_are_found():
    edges = nx.DiGraph([("a.x", "a.y"), ("a.y", "a.z"), ("a.z", "a.x"), ("a.z", "b")])
    assert [sorted(c) for c in nx.strongly_connected_components(edges) if len(c) > 1] == [["a.x", "a.y", "a.z"]]


def test_no_two_modules_import_each_other():
    loops = sorted(sorted(c) for c in nx.strongly_connected_components(import_graph()) if len(c) > 1)
    assert not loops, "modules that import each other (directly or round a loop):\n" + "\n".join(map(str, loops))
