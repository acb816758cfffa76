"""Confirming a captured concept as an operator does: list the queue, then confirm the version
listed (issue 30, ADR 0044: a concept changed since it was listed is not confirmed)."""

from __future__ import annotations

import httpx

__all__ = ["confirm_listed", "confirm_listed_sync", "listed_version"]


def listed_version(queue: list[dict[str, object]], concept_id: str) -> str:
    """The version the queue lists for ``concept_id`` (a placeholder when it is not there)."""
    found = [item for item in queue if item.get("id") == concept_id]
    return str(found[0]["version"]) if found else "not-listed"


async def confirm_listed(
    client: httpx.AsyncClient, concept_id: str, headers: dict[str, str]
) -> httpx.Response:
    queue = (await client.get("/api/review/concepts", headers=headers)).json()
    version = listed_version(queue if isinstance(queue, list) else [], concept_id)
    return await client.post(
        f"/api/review/concepts/{concept_id}/confirm", json={"version": version}, headers=headers
    )


def confirm_listed_sync(base: str, concept_id: str, headers: dict[str, str]) -> httpx.Response:
    queue = httpx.get(f"{base}/api/review/concepts", headers=headers, timeout=30).json()
    version = listed_version(queue if isinstance(queue, list) else [], concept_id)
    return httpx.post(
        f"{base}/api/review/concepts/{concept_id}/confirm",
        json={"version": version},
        headers=headers,
        timeout=30,
    )
