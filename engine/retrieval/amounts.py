"""Numbers as a reader writes them (issue 23): never ``1e+06``.

Python's ``:g`` prints a million as ``1e+06``; a rule's value is read by a tax adviser in an
answer and by the retriever in a node's searchable text, and neither reads exponents. The
retrieval tokeniser folds ``1,000,000``, ``1 000 000`` and ``1000000`` into the same token, so
a document may group thousands as people write them. It lives in the retrieval package so that
a change here is a change of the on-disk index's key (``cache.py`` hashes this package's source).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

__all__ = ["amount"]


def amount(value: Any, *, grouped: bool = False) -> str:
    """``value`` written out: ``1000000`` (``1,000,000`` when ``grouped``) for 1e6, ``4.8`` for
    4.8, ``12500.5`` as given; anything that is not a number (or is a bool) as ``str`` gives it.
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):  # NaN, infinities
        return str(value)
    if isinstance(value, int):  # exact, however long
        return f"{value:,}" if grouped else str(value)
    # Twelve significant digits (``0.1 + 0.2`` is 0.3), written without an exponent.
    digits = Decimal(f"{value:.12g}")
    return format(digits, ",f" if grouped else "f")
