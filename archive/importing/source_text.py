"""Import a text file as a Source and its Passages, and replace it safely.

The file is read within bounds and decoded by `archive.importing.source_file`
(a regular file of at most SOURCE_IMPORT_MAX_BYTES, strict UTF-8, hashed) and
split into passages whose text plus separators rebuild it exactly. A changed
file may replace an imported one only if every citation on the old passages
can be re-anchored in the new ones (`archive.importing.reanchor`); otherwise
the replacement is refused with the list of citations it cannot place.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import dating
from archive import search as search_index
from archive.db.cited_passages import rewriting
from archive.models import Citation, DocumentVersion, Language, Passage, PassageRole, Source, SourceKind, Status
from archive.services.authorship import save_as
from archive.text.segment import Segment, sha256_text

from .bulk import BATCH_SIZE, insert_passages, record_history
from .reanchor import CitationSpan, Placement, Unplaced, expected_positions, plan_reanchor
from .source_file import SourceFile, SourceFileError, SourceImportError, decode_source, read_source_file

__all__ = [
    "CitationsNotPlaced",
    "ImportResult",
    "Placement",
    "SourceFile",
    "SourceFileError",
    "SourceImportError",
    "Unplaced",
    "decode_source",
    "import_source",
    "passage_roles",
    "plan_reanchor",
    "read_source_file",
]


def passage_roles(segments: Sequence[Segment], patterns: Sequence[str] | None = None) -> list[str]:
    """Boilerplate for a passage matching one of ``patterns`` (default: the setting), else body."""
    if patterns is None:
        patterns = getattr(settings, "ARCHIVE_BOILERPLATE_PATTERNS", [])
    compiled = [re.compile(p) for p in patterns]
    return [
        PassageRole.BOILERPLATE if any(p.search(seg.text) for p in compiled) else PassageRole.BODY for seg in segments
    ]


class CitationsNotPlaced(SourceImportError):
    """Replacing the text would strand citations; nothing was written."""

    def __init__(self, slug: str, unplaced: list[Unplaced]) -> None:
        self.slug = slug
        self.unplaced = unplaced
        lines = "\n".join(f"  - {u}" for u in unplaced)
        super().__init__(
            _("The new text of %(slug)s leaves %(count)s citation(s) without a place; nothing was changed:\n%(lines)s")
            % {"slug": slug, "count": len(unplaced), "lines": lines}
        )


# --- the service ----------------------------------------------------------


@dataclass
class ImportResult:
    source: Source
    action: Literal["created", "filled", "unchanged", "replaced"]
    passages: int = 0
    moved: int = 0
    notes: list[str] = field(default_factory=list)


def _check_metadata(*, slug: str, title: str, kind: str, language: str, date: str | None) -> None:
    problems: list[str] = []
    try:
        validate_slug(slug)
    except ValidationError:
        problems.append(_("slug “%(slug)s” may hold only letters, digits, hyphens and underscores") % {"slug": slug})
    if not title.strip():
        problems.append(_("the title is empty"))
    if kind not in SourceKind.values:
        problems.append(
            _("kind “%(kind)s” is not one of %(kinds)s") % {"kind": kind, "kinds": ", ".join(SourceKind.values)}
        )
    if language not in Language.values:
        problems.append(
            _("language “%(language)s” is not one of %(languages)s")
            % {"language": language, "languages": ", ".join(Language.values)}
        )
    if date:
        try:
            dating.bounds(date)
        except dating.BadDate as exc:
            problems.append(str(exc))
    if problems:
        raise SourceImportError("; ".join(problems))


def import_source(
    *,
    path: str | Path,
    slug: str,
    title: str,
    kind: str,
    language: str,
    author: str | None = None,
    date: str | None = None,
    replace: bool = False,
) -> ImportResult:
    """Import the file at ``path`` as source ``slug``, all or nothing.

    A new source enters as a draft. The same file again changes nothing. A
    changed file under an existing slug is refused unless ``replace``; then
    every citation is re-anchored or the whole replacement is refused
    (CitationsNotPlaced). Raises SourceImportError for anything refused.
    """
    source_file = read_source_file(path)
    _check_metadata(slug=slug, title=title, kind=kind, language=language, date=date)
    roles = passage_roles(source_file.segments)
    with transaction.atomic():
        existing = Source.objects.select_for_update().filter(slug=slug).first()
        twins = Source.objects.filter(sha256=source_file.sha256).exclude(slug=slug)
        twin = twins.values_list("slug", flat=True).first()
        if twin is not None:
            raise SourceImportError(
                _("%(file)s is already imported as source %(twin)s; it is not imported a second time as %(slug)s.")
                % {"file": source_file.file_name, "twin": twin, "slug": slug}
            )
        if existing is None:
            source = Source(
                slug=slug,
                title=title,
                author=author or "",
                kind=kind,
                language=language,
                date=date or "",
                text=source_file.text,
                sha256=source_file.sha256,
                file_name=source_file.file_name,
                status=Status.DRAFT,
                created_by=None,
            )
            save_as(source, by=None, reason=f"imported from {source_file.file_name}")
            insert_passages(source, source_file.segments, roles, reason=f"imported from {source_file.file_name}")
            search_index.reindex([source])
            return ImportResult(source, "created", passages=len(source_file.segments))
        if existing.sha256 == source_file.sha256 and existing.text == source_file.text:
            return ImportResult(existing, "unchanged", passages=existing.passages.count())
        has_passages = existing.passages.exists()
        if (existing.text or has_passages) and not replace:
            raise SourceImportError(
                _(
                    "Source %(slug)s was imported from a different file (SHA-256 %(old)s); %(file)s has SHA-256 "
                    "%(new)s. Nothing was changed; use --replace to replace the text and re-anchor its citations."
                )
                % {
                    "slug": slug,
                    "old": existing.sha256 or "none",
                    "file": source_file.file_name,
                    "new": source_file.sha256,
                }
            )
        return _replace(existing, source_file, roles, title=title, kind=kind, language=language, author=author,
                        date=date, filled=not has_passages)


def _replace(
    source: Source,
    source_file: SourceFile,
    roles: list[str],
    *,
    title: str,
    kind: str,
    language: str,
    author: str | None,
    date: str | None,
    filled: bool,
) -> ImportResult:
    if source.status == Status.APPROVED:
        # A new text re-anchors every citation on it: too large a change to publish
        # unreviewed, and no revision carries a whole new text.
        raise SourceImportError(
            _(
                "%(slug)s is published: its text is not replaced in place. Nothing was changed; import the "
                "new text under another slug and have it reviewed."
            )
            % {"slug": source.slug}
        )
    old = list(source.passages.order_by("seq"))
    index_of = {p.pk: i for i, p in enumerate(old)}
    citations = list(Citation.objects.filter(passage__source=source).order_by("pk"))
    new_texts = [seg.text for seg in source_file.segments]
    spans = [CitationSpan(str(c.pk), index_of[c.passage_id], c.start, c.end) for c in citations]
    placed, unplaced = plan_reanchor([p.text for p in old], new_texts, spans)
    if unplaced:
        by_pk = {str(c.pk): c for c in citations}
        unplaced = [
            Unplaced(f"{by_pk[u.citation].slug or u.citation} (id {u.citation})", u.seq, u.quote, u.reason)
            for u in unplaced
        ]
        raise CitationsNotPlaced(source.slug, unplaced)

    reason = f"replaced by {source_file.file_name}"
    source.title, source.kind, source.language = title, kind, language
    if author is not None:
        source.author = author
    if date is not None:
        source.date = date
    source.text, source.sha256, source.file_name = source_file.text, source_file.sha256, source_file.file_name
    save_as(source, by=None, reason=reason)

    # A passage whose text is unchanged keeps its curated role and quoted work.
    _expected, same = expected_positions([p.text for p in old], new_texts)
    keep = {j: old[i] for i, j in same.items()}
    quotes: list[int | None] = []
    for j in range(len(new_texts)):
        if j in keep:
            roles[j] = keep[j].role
            quotes.append(keep[j].quotes_id)
        else:
            quotes.append(None)

    # Rows are reused seq by seq, so (source, seq) never collides midway.
    changed: list[Passage] = []
    for j, (passage, seg) in enumerate(zip(old, source_file.segments, strict=False)):
        values = {
            "text": seg.text,
            "start": seg.start,
            "end": seg.end,
            "sha256": sha256_text(seg.text),
            "role": roles[j],
            "quotes_id": quotes[j],
        }
        if any(getattr(passage, k) != v for k, v in values.items()):
            for k, v in values.items():
                setattr(passage, k, v)
            changed.append(passage)
    fields = ["text", "start", "end", "sha256", "role", "quotes"]
    n_old, n_new = len(old), len(source_file.segments)
    # The database refuses to change a cited passage's words except here, where every citation is re-anchored
    # in the same transaction (`archive.db.cited_passages`).
    with rewriting(p.pk for p in changed):
        Passage.objects.bulk_update(changed, fields, batch_size=BATCH_SIZE)
        record_history(Passage, changed, history_type="~", reason=reason)
    added = insert_passages(source, source_file.segments[n_old:], roles[n_old:], quotes=quotes[n_old:], reason=reason)
    id_at = [p.pk for p in old[:n_new]] + [p.pk for p in added]

    now = timezone.now()
    moved: list[Citation] = []
    for citation in citations:
        spot = placed[str(citation.pk)]
        target = (id_at[spot.index], spot.start, spot.end)
        if (citation.passage_id, citation.start, citation.end) != target:
            citation.passage_id, citation.start, citation.end = target
            citation.updated_at = now
            moved.append(citation)
    citation_fields = ["passage", "start", "end", "updated_at"]
    if any(f.name == "version" for f in Citation._meta.concrete_fields):
        # An editor holding the old offsets must not save them back over the re-anchored ones.
        for citation in moved:
            citation.version += 1
        citation_fields.append("version")
    # The quote and claim are unchanged, so a re-anchored citation keeps its review status.
    Citation.objects.bulk_update(moved, citation_fields, batch_size=BATCH_SIZE)
    record_history(Citation, moved, history_type="~", reason=f"re-anchored: {reason}")
    if n_old > n_new:
        Passage.objects.filter(source=source, seq__gt=n_new).delete()
    search_index.reindex([source])
    DocumentVersion.objects.bump_everything()  # bulk_update sends no signal
    return ImportResult(source, "filled" if filled else "replaced", passages=n_new, moved=len(moved))
