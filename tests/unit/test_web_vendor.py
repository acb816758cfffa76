"""The web app's vendored libraries are the registry's files, listed with their licences, and
the page loads nothing from another origin (ADR 0021)."""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from api.routes.web import CONTENT_SECURITY_POLICY, WEB_DIR

pytestmark = pytest.mark.unit

VENDOR = WEB_DIR / "vendor"


def manifest() -> list[dict[str, str]]:
    packages: list[dict[str, str]] = json.loads((VENDOR / "VENDOR.json").read_text())["packages"]
    return packages


@pytest.mark.parametrize("package", manifest(), ids=lambda p: p["name"])
def test_a_vendored_file_is_the_one_the_manifest_names(package: dict[str, str]) -> None:
    data = (VENDOR / package["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == package["sha256"]
    assert package["version"] in package["integrity"] or package["integrity"].startswith("sha512-")
    licence = (VENDOR / package["licence_file"]).read_text()
    assert "Permission is hereby granted" in licence  # MIT


def test_every_vendored_file_is_in_the_manifest() -> None:
    listed = {p["file"] for p in manifest()} | {p["licence_file"] for p in manifest()}
    assert {p.name for p in VENDOR.iterdir()} - {"VENDOR.json"} == listed


def test_the_app_refers_to_no_other_origin() -> None:
    sources = [p for p in WEB_DIR.iterdir() if p.suffix in {".html", ".js", ".css"}]
    assert sources
    for path in sources:
        text = path.read_text()
        # outbound links built at run time (EUR-Lex, source URLs) are anchors, never loaded
        for reference in re.findall(
            r"""(?:src|href|url\(|import[^"']*from)\s*=?\s*["']?([^"')\s>]+)""", text
        ):
            assert not re.match(r"(https?:)?//", reference), (path.name, reference)
    assert "default-src 'self'" in CONTENT_SECURITY_POLICY
    assert "script-src 'self';" in CONTENT_SECURITY_POLICY  # no inline script, no eval


def test_the_module_graph_is_closed() -> None:
    """Every module the page imports exists in web/ (a typo would be a blank page)."""
    pending, seen = ["main.js"], set()
    while pending:
        name = pending.pop()
        seen.add(name)
        text = (WEB_DIR / name).read_text()
        for target in re.findall(r"""^import .*?from "\./([^"]+)";""", text, re.M):
            assert (WEB_DIR / target).is_file(), (name, target)
            if target not in seen and not target.startswith("vendor/"):
                pending.append(target)
    page = (WEB_DIR / "index.html").read_text()
    for script in re.findall(r'<script[^>]*src="/app/([^"]+)"', page):
        assert (WEB_DIR / script).is_file(), script
    assert {"main.js", "api.js", "sse.js", "chat.js", "graph.js", "markdown.js"} <= seen
