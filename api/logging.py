"""Structured logs: JSON lines (or readable console lines in development) via structlog.

Logs go to standard error, so that standard output carries only a command's result (the CLI's
JSON reports can be piped).
"""

from __future__ import annotations

import logging
import sys

import structlog

__all__ = [
    "StderrLogger",
    "configure_logging",
]


class StderrLogger:
    """Writes each rendered line to the *current* ``sys.stderr`` (looked up per call, so a
    replaced stream — a test's capture, a redirect — is honoured)."""

    def __init__(self, *_args: object) -> None:
        return None

    def msg(self, message: str) -> None:
        print(message, file=sys.stderr, flush=True)

    log = debug = info = warning = warn = error = critical = exception = fatal = msg


def configure_logging(level: str = "INFO", *, json: bool = True) -> None:
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=StderrLogger,
        cache_logger_on_first_use=True,
    )
