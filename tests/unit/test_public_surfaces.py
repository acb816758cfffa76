"""Public surfaces are derived, not restated (docs/architecture.md, "Conventions").

For every module of the first-party packages, ``__all__`` must equal the public names the
module itself defines (top-level functions, classes and assignments, read from its source;
type variables excluded);
a package's ``__init__`` may also re-export names it imports. No module imports another
module's private (underscore) names. A new public function without an ``__all__`` entry, or a
stale entry, fails here.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path
from typing import TypeVar

import pytest

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "api",
    "conversations",
    "corpus",
    "egress",
    "embeddings",
    "engine",
    "errors",
    "graph",
    "infra",
    "tools/standin",
)
NOT_API = {"log", "logger"}  # module loggers are conventionally not part of the API


def modules() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def defined_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return {n for n in names if not n.startswith("_") and n not in NOT_API}


def imported_names(tree: ast.Module) -> set[str]:
    return {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
    }


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_all_lists_exactly_the_public_names(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    module = importlib.import_module(module_name(path))
    assert hasattr(module, "__all__"), f"{module_name(path)} has no __all__"
    exported = set(module.__all__)
    defined = {n for n in defined_names(tree) if not isinstance(getattr(module, n), TypeVar)}
    if path.name == "__init__.py":
        assert defined <= exported, f"defined but not exported: {sorted(defined - exported)}"
        assert exported <= defined | imported_names(tree), "exports a name it does not have"
    else:
        assert exported == defined, (
            f"missing: {sorted(defined - exported)}, stale: {sorted(exported - defined)}"
        )
    for name in exported:
        assert getattr(module, name, None) is not None, f"{name} is exported but not defined"


@pytest.mark.parametrize("path", modules(), ids=module_name)
def test_no_private_name_crosses_a_module(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    crossing = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and node.module
        and node.module.split(".")[0] in PACKAGES
        for alias in node.names
        if alias.name.startswith("_")
    ]
    assert crossing == []
