"""What the archive curates, what a citation is evidence for, and how fiction is read: declared once.

The review queue and the curators' pages, the fiction flags, the audit, the
roles, the selectors and the API's parameters derive their lists from here,
so that a new kind of record, target or fiction mode is added in one place.
The target fields themselves are declared beside the foreign keys they name
(`archive.models.citations.TARGET_FIELDS`); the models are read from those keys.
"""

from __future__ import annotations

import enum

from .citations import TARGET_FIELDS, Citation
from .curation import Cited, Curated
from .sources import Source
from .statements import Statement

__all__ = ["CITED_MODELS", "CURATED_MODELS", "TARGET_FIELDS", "FictionMode", "cited_model"]


def _target_model(field: str) -> type[Cited]:
    model = Citation._meta.get_field(field).related_model
    if not (isinstance(model, type) and issubclass(model, Cited)):
        raise TypeError(f"Citation.{field} must point at a cited model, not {model!r}")
    return model


# What a citation can be evidence for, in the order of `TARGET_FIELDS`.
CITED_MODELS: tuple[type[Cited], ...] = tuple(_target_model(field) for field in TARGET_FIELDS)
_CITED_BY_FIELD: dict[str, type[Cited]] = dict(zip(TARGET_FIELDS, CITED_MODELS, strict=True))

# Every reviewed model, in the order a reviewer meets them: what is cited
# before the citations that rest on it, and the statements that rest on those.
CURATED_MODELS: tuple[type[Curated], ...] = (Source, *CITED_MODELS, Citation, Statement)


def cited_model(field: str) -> type[Cited]:
    """The model a citation's target field `field` points at (KeyError for any other name)."""
    return _CITED_BY_FIELD[field]


class FictionMode(enum.StrEnum):
    """How a reader takes fiction: left out (the default), included, or alone."""

    EXCLUDE = "exclude"
    INCLUDE = "include"
    ONLY = "only"

    @property
    def nested(self) -> FictionMode:
        """The mode that governs nested data: `only` selects records, not their evidence."""
        return FictionMode.EXCLUDE if self is FictionMode.EXCLUDE else FictionMode.INCLUDE

    def shows(self, fictional: bool) -> bool:
        """Whether a record of this fiction flag is shown, as `selectors.filter_fiction` decides it in SQL."""
        return {FictionMode.EXCLUDE: not fictional, FictionMode.ONLY: fictional}.get(self, True)
