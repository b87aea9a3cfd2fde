"""Who makes a release: a reviewer (one who may approve records) or a superuser, never a curator alone."""

from __future__ import annotations

from typing import Any


def can_make_release(user: Any) -> bool:
    return bool(user.is_active and (user.is_superuser or user.has_perm("archive.review_source")))
