"""Confirming a captured concept as an operator does: list the queue, then confirm the version
listed (issue 30, ADR 0044: a concept changed since it was listed is not confirmed).

A capture's background population may still be writing to the concept when the test lists it;
the server then answers ``409 review_conflict`` ("list it again"). An operator lists again and
confirms what the concept holds now, and so do these helpers, a few times. Tests of the
conflict itself post the confirmation directly.
"""

from __future__ import annotations

import time

import anyio
import httpx

__all__ = ["confirm_listed", "confirm_listed_sync", "listed_version"]

ATTEMPTS = 5
PAUSE_S = 0.5


def listed_version(queue: list[dict[str, object]], concept_id: str) -> str:
    """The version the queue lists for ``concept_id`` (a placeholder when it is not there)."""
    found = [item for item in queue if item.get("id") == concept_id]
    return str(found[0]["version"]) if found else "not-listed"


def _changed_since_listed(response: httpx.Response) -> bool:
    if response.status_code != 409:
        return False
    error = response.json().get("error", {})
    return isinstance(error, dict) and error.get("code") == "review_conflict"


async def confirm_listed(
    client: httpx.AsyncClient, concept_id: str, headers: dict[str, str]
) -> httpx.Response:
    for attempt in range(ATTEMPTS):
        queue = (await client.get("/api/review/concepts", headers=headers)).json()
        version = listed_version(queue if isinstance(queue, list) else [], concept_id)
        response = await client.post(
            f"/api/review/concepts/{concept_id}/confirm",
            json={"version": version},
            headers=headers,
        )
        if not _changed_since_listed(response) or attempt == ATTEMPTS - 1:
            return response
        await anyio.sleep(PAUSE_S)
    raise AssertionError("unreachable")


def confirm_listed_sync(base: str, concept_id: str, headers: dict[str, str]) -> httpx.Response:
    for attempt in range(ATTEMPTS):
        queue = httpx.get(f"{base}/api/review/concepts", headers=headers, timeout=30).json()
        version = listed_version(queue if isinstance(queue, list) else [], concept_id)
        response = httpx.post(
            f"{base}/api/review/concepts/{concept_id}/confirm",
            json={"version": version},
            headers=headers,
            timeout=30,
        )
        if not _changed_since_listed(response) or attempt == ATTEMPTS - 1:
            return response
        time.sleep(PAUSE_S)
    raise AssertionError("unreachable")
