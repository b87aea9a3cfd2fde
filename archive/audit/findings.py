"""What a check reports: one finding about one record, with the passages it rests on."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any

from django.db import models

from archive.models import Passage


def passage_key(passage: Passage) -> str:
    """How a curator's note names a passage: its source's slug and its number, `history-nanjing-retreat-9`."""
    return f"{passage.source.slug}-{passage.seq}"


class Level(enum.StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


LEVELS = (Level.ERROR, Level.WARNING, Level.INFO)


@dataclass
class Finding:
    level: Level
    code: str
    record: models.Model | None
    message: str
    passages: list[Passage] = field(default_factory=list)
    # The curator's note that explains the finding; an explained finding is not a problem.
    explained_by: str = ""
    # Where in the record: the field and the words the finding is about, when a check names them.
    field: str = ""
    quote: str = ""

    @property
    def model(self) -> str:
        return self.record._meta.label_lower.split(".")[1] if self.record is not None else ""

    @property
    def slug(self) -> str:
        if isinstance(self.record, Passage):
            return passage_key(self.record)
        return getattr(self.record, "slug", "") or ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "level": str(self.level),
            "code": self.code,
            "record": {"model": self.model, "slug": self.slug, "label": str(self.record)} if self.record else None,
            "passages": [{"source": p.source.slug, "seq": p.seq} for p in self.passages],
            "field": self.field or None,
            "quote": self.quote or None,
            "message": self.message,
            "explained_by": self.explained_by or None,
        }
