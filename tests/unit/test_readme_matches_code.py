"""Issue 26: the README's commands and configuration variables are checked against the code, so
a sentence the code contradicts fails here instead of tripping a newcomer.

- every ``REGINTEL_*`` variable of the Configuration table names a setting (``api.settings``),
  and every default written as a literal (`` `5` ``, `` `true` ``, `` `ladybug` ``, ``—``) is the
  setting's default;
- every ``regintel …`` command in the README's code blocks is a command of the CLI, with the
  options it is shown with;
- every ``make`` target, ``bench/…`` script and ``tests/…`` file the README names exists.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer.main

from api.cli import app
from api.settings import Settings

pytestmark = pytest.mark.unit

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PREFIX = "REGINTEL_"
FIELDS = Settings.model_fields
SECRET_DEFAULTS = {"—", "-", ""}


def configuration_rows() -> list[tuple[list[str], list[str]]]:
    """(variable names, documented defaults) of each row of the Configuration table."""
    section = README.split("\n## Configuration", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[0].startswith("`REGINTEL_"):
            continue
        names = expand(re.findall(r"`(_?[A-Z0-9_]+)`", cells[0]))
        defaults = [d.strip() for d in cells[1].split(" / ")]
        rows.append((names, defaults))
    return rows


def expand(tokens: list[str]) -> list[str]:
    """``REGINTEL_BOLT_URI`` / ``_USER`` -> the full names: a ``_SUFFIX`` replaces the end of the
    row's first name (the longest head that makes a setting)."""
    names: list[str] = []
    for token in tokens:
        if not token.startswith("_"):
            names.append(token)
            continue
        head = names[0].removeprefix(PREFIX).split("_")
        candidates = [
            PREFIX + "_".join([*head[:k], token.strip("_")]).strip("_")
            for k in range(len(head) - 1, -1, -1)
        ]
        known = [c for c in candidates if field_of(c) in FIELDS]
        names.append(known[0] if known else candidates[0])
    return names


def field_of(variable: str) -> str:
    return variable.removeprefix(PREFIX).lower()


def literal(documented: str) -> tuple[bool, Any]:
    """Whether a documented default is a literal, and its value."""
    if documented in SECRET_DEFAULTS:
        return True, None
    match = re.fullmatch(r"`([^`]*)`", documented)
    if match is None:
        return False, None  # prose: "the wheel's", "$DATA_DIR/…", "OpenAI"
    text = match.group(1)
    if text in ("true", "false"):
        return True, text == "true"
    if text.startswith("$"):
        return False, None
    try:
        return True, float(text)
    except ValueError:
        return True, text


def same(documented: Any, actual: Any) -> bool:
    if hasattr(actual, "get_secret_value"):
        actual = actual.get_secret_value() or None
    if hasattr(actual, "value"):  # an enum
        actual = actual.value
    if documented is None:
        return actual in (None, "", {}, [], ())
    if isinstance(documented, bool):
        return actual is documented
    if isinstance(documented, float):
        return isinstance(actual, int | float) and float(actual) == documented
    if isinstance(actual, dict | list) and documented in ("{}", "[]"):
        return not actual
    return bool(str(actual) == documented)


def test_the_configuration_table_is_read():
    rows = configuration_rows()
    assert len(rows) >= 40  # the parser found the table, not an empty section


@pytest.mark.parametrize(
    ("names", "defaults"), configuration_rows(), ids=lambda v: v[0] if isinstance(v, list) else ""
)
def test_each_documented_variable_is_a_setting_with_its_default(
    names: list[str], defaults: list[str]
) -> None:
    missing = [n for n in names if field_of(n) not in FIELDS]
    assert not missing, f"the README lists {missing}, which api/settings.py does not have"
    if len(defaults) != len(names):
        if len(defaults) != 1:
            pytest.fail(f"{names}: {len(defaults)} defaults for {len(names)} variables")
        defaults = defaults + ["(not stated)"] * (len(names) - 1)
    for name, documented in zip(names, defaults, strict=True):
        is_literal, value = literal(documented)
        if not is_literal:
            continue
        actual = FIELDS[field_of(name)].get_default(call_default_factory=True)
        assert same(value, actual), f"{name}: the README says {documented}, the code {actual!r}"


def readme_commands() -> list[list[str]]:
    """``regintel …`` invocations in the README's code blocks, as argument lists."""
    found = []
    for block in re.findall(r"```sh\n(.*?)```", README, re.DOTALL):
        for line in block.splitlines():
            line = line.split("  #", 1)[0].strip()
            match = re.search(r"(?:^|\s|/)regintel\s+(.*)$", line)
            if match is None or line.startswith("cat "):
                continue
            found.append(shlex.split(match.group(1)))
    return found


def resolve(args: list[str]) -> tuple[Any, list[str]]:
    """The CLI command ``args`` names, and what follows its name (groups are told by their
    ``commands``: Typer may bring its own copy of Click)."""
    command: Any = typer.main.get_command(app)
    rest = list(args)
    while hasattr(command, "commands") and rest and rest[0] in command.commands:
        command = command.commands[rest.pop(0)]
    return command, rest


def test_the_readme_shows_commands():
    assert len(readme_commands()) >= 15


@pytest.mark.parametrize("args", readme_commands(), ids=lambda a: " ".join(a[:2]))
def test_each_readme_command_exists_with_its_options(args: list[str]) -> None:
    command, rest = resolve(args)
    assert not hasattr(command, "commands"), f"regintel {' '.join(args)}: not a command"
    options = {o for p in command.params for o in getattr(p, "opts", [])}
    shown = [a.split("=", 1)[0] for a in rest if a.startswith("--")]
    unknown = [o for o in shown if o not in options]
    assert not unknown, f"regintel {' '.join(args)}: no option {unknown}"


def test_the_make_targets_scripts_and_files_the_readme_names_exist():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.MULTILINE))
    named = set(re.findall(r"`make ([a-z-]+)`", README)) | set(
        re.findall(r"^make ([a-z-]+)", README, re.MULTILINE)
    )
    assert named and named <= targets, named - targets
    paths = set(
        re.findall(
            r"((?:bench|tests|tools|web|seeds|docs)/[\w./-]+\.(?:py|sh|md|jsonl|json))", README
        )
    )
    missing = sorted(p for p in paths if not (ROOT / p).exists())
    assert not missing, missing
