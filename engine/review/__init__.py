"""Review: what an operator does with captured concepts (confirm, merge, reject) and its audit."""

from engine.review.actions import (
    ReviewItem,
    content_version,
    merge_concepts,
    reject_concept,
    review_item,
    review_queue,
)
from engine.review.audit import REVIEW_AUDIT_FILE, ReviewActionName, ReviewAudit, ReviewRecord
from engine.review.confirm import confirm_concept

__all__ = [
    "REVIEW_AUDIT_FILE",
    "ReviewActionName",
    "ReviewAudit",
    "ReviewItem",
    "ReviewRecord",
    "confirm_concept",
    "content_version",
    "merge_concepts",
    "reject_concept",
    "review_item",
    "review_queue",
]
