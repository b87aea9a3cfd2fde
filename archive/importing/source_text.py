"""Import a text file as a Source and its Passages, and replace it safely.

The archive must be able to prove that every passage is a slice of the file
it came from, so the file is read as bytes, decoded as strict UTF-8 with no
newline translation (a BOM stays a character), hashed, and split by
`archive.text.segment.split_passages`, whose passages plus separators rebuild
the text exactly. A file that is not text is refused before anything is
written. A changed file may replace an imported one only if every citation
on the old passages can be re-anchored in the new ones; otherwise the
replacement is refused with the list of citations it cannot place.
"""

from __future__ import annotations

import difflib
import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import dating
from archive import search as search_index
from archive.models import Citation, Language, Passage, PassageRole, Source, SourceKind, Status
from archive.text import anchor
from archive.text.segment import Segment, sha256_text, split_passages

from .bulk import BATCH_SIZE, insert_passages, record_history

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

# A text may hold a stray control character; a file in which more than this
# share of the characters are control characters is not text.
CONTROL_SHARE = 0.1
_TEXT_CONTROLS = frozenset("\t\n\r\f\v")
# How far from its expected place a citation's passage is looked for when the
# passage it stood on has changed.
NEIGHBOUR_RADIUS = 2
# An edited passage's successor resembles it at least this much (difflib
# ratio), and clearly more than any other candidate.
SUCCESSOR_SIMILARITY = 0.6
SUCCESSOR_MARGIN = 0.05


class SourceImportError(ValueError):
    """A source that cannot be imported as asked; nothing was written."""


class SourceFileError(SourceImportError):
    """A file that is not importable text; the message names the file."""


@dataclass(frozen=True)
class SourceFile:
    """A decoded source file: ``text`` is exactly ``data`` decoded."""

    file_name: str
    data: bytes
    text: str
    sha256: str
    segments: tuple[Segment, ...]


def decode_source(data: bytes, *, name: str) -> SourceFile:
    """Decode and split ``data``, or raise SourceFileError naming ``name``."""
    if b"\x00" in data:
        raise SourceFileError(
            _("%(file)s is a binary file, not text: it holds a NUL byte at byte offset %(offset)s.")
            % {"file": name, "offset": data.index(b"\x00")}
        )
    try:
        text = data.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise SourceFileError(
            _("%(file)s is not valid UTF-8: byte offset %(offset)s (%(reason)s).")
            % {"file": name, "offset": exc.start, "reason": exc.reason}
        ) from exc
    controls = sum(1 for ch in text if ch not in _TEXT_CONTROLS and unicodedata.category(ch) == "Cc")
    if text and controls > CONTROL_SHARE * len(text):
        raise SourceFileError(
            _("%(file)s is a binary file, not text: %(count)s of its %(length)s characters are control characters.")
            % {"file": name, "count": controls, "length": len(text)}
        )
    segments = tuple(split_passages(text))
    if not segments:
        raise SourceFileError(_("%(file)s is empty: it holds no line of text.") % {"file": name})
    return SourceFile(
        file_name=name, data=data, text=text, sha256=hashlib.sha256(data).hexdigest(), segments=segments
    )


def read_source_file(path: str | Path) -> SourceFile:
    """Read ``path`` as bytes and decode it; the file name kept is its basename."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise SourceFileError(_("%(file)s cannot be read: %(error)s") % {"file": path, "error": exc.strerror}) from exc
    return decode_source(data, name=path.name)


def passage_roles(segments: Sequence[Segment], patterns: Sequence[str] | None = None) -> list[str]:
    """Boilerplate for a passage matching one of ``patterns`` (default: the setting), else body."""
    if patterns is None:
        patterns = getattr(settings, "ARCHIVE_BOILERPLATE_PATTERNS", [])
    compiled = [re.compile(p) for p in patterns]
    return [
        PassageRole.BOILERPLATE if any(p.search(seg.text) for p in compiled) else PassageRole.BODY for seg in segments
    ]


# --- re-anchoring ---------------------------------------------------------


@dataclass(frozen=True)
class Placement:
    """Where a citation lands in the new text: passage index (0-based) and offsets in it."""

    index: int
    start: int
    end: int


@dataclass(frozen=True)
class Unplaced:
    """A citation the new text has no unique place for."""

    citation: str
    seq: int
    quote: str
    reason: str

    def __str__(self) -> str:
        return _("citation %(citation)s on passage §%(seq)s, “%(quote)s”: %(reason)s") % {
            "citation": self.citation,
            "seq": self.seq,
            "quote": self.quote,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CitationSpan:
    """What re-anchoring needs of a citation: a label, its passage's index and its offsets."""

    label: str
    index: int
    start: int
    end: int


def _expected_positions(old: Sequence[str], new: Sequence[str]) -> tuple[dict[int, int], dict[int, int]]:
    """Align old and new passages by their text.

    Returns, for each old passage, the new passage expected in its place, and
    the subset of old passages whose text is unchanged (mapped to their twin).
    With no passage added or removed the expected place is the same seq.
    """
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    expected: dict[int, int] = {}
    same: dict[int, int] = {}
    last = max(len(new) - 1, 0)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        for i in range(i1, i2):
            if tag == "equal":
                expected[i] = same[i] = j1 + (i - i1)
            elif tag == "replace":
                expected[i] = min(j1 + (i - i1), j2 - 1)
            else:  # delete: the passage is gone; look around where it was
                expected[i] = min(j1, last)
    return expected, same


def _similarity(a: str, b: str) -> float:
    return difflib.SequenceMatcher(None, a, b, autojunk=False).ratio()


def _window(home: int, seq_index: int, size: int) -> list[list[int]]:
    """Rings of candidate passages: the expected one, the old seq, then neighbours."""
    rings: list[list[int]] = [[home]]
    if seq_index != home:
        rings.append([seq_index])
    rings += [[home - d, home + d] for d in range(1, NEIGHBOUR_RADIUS + 1)]
    seen: set[int] = set()
    out: list[list[int]] = []
    for ring in rings:
        kept = [j for j in ring if 0 <= j < size and j not in seen]
        seen.update(kept)
        if kept:
            out.append(kept)
    return out


def plan_reanchor(
    old_texts: Sequence[str], new_texts: Sequence[str], citations: Sequence[CitationSpan]
) -> tuple[dict[str, Placement], list[Unplaced]]:
    """Place every citation of the old passages in the new ones.

    Old and new passages are aligned by text. A citation on an unchanged
    passage stays on its twin. A citation on an edited passage goes to the
    new passage that resembles the old one (at least SUCCESSOR_SIMILARITY,
    among the expected passage, the old seq and two neighbours each way);
    two passages that resemble it about equally are ambiguous and refused.
    When the old passage no longer exists, the quote is looked for in the
    expected passage (the same seq unless passages were added or removed
    before it), then the old seq, then the neighbours one and two away, and
    each ring must yield exactly one find. Finding a quote is always
    `anchor.reanchor`, which refuses look-alikes inside a passage.
    """
    expected, same = _expected_positions(old_texts, new_texts)
    placed: dict[str, Placement] = {}
    failures: list[Unplaced] = []
    for cite in citations:
        old_text = old_texts[cite.index]
        quote = old_text[cite.start : cite.end] if 0 <= cite.start < cite.end <= len(old_text) else ""

        def attempt(j: int, cite: CitationSpan = cite, old_text: str = old_text) -> Placement | str:
            try:
                found = anchor.reanchor(old_text, new_texts[j], cite.start, cite.end)
            except ValueError as exc:  # ReanchorError, or offsets outside the old passage
                return str(exc)
            return Placement(j, found.start, found.end)

        home = expected.get(cite.index, cite.index)
        rings = _window(home, cite.index, len(new_texts))
        result: Placement | str
        if cite.index in same:
            result = attempt(same[cite.index])
        else:
            result = _place_edited(old_text, new_texts, rings, attempt, cite.index + 1)
        if isinstance(result, Placement):
            placed[cite.label] = result
        else:
            failures.append(Unplaced(cite.label, cite.index + 1, quote, result))
    return placed, failures


def _place_edited(old_text: str, new_texts: Sequence[str], rings: list[list[int]], attempt: Any, seq: int
                  ) -> Placement | str:
    candidates = [j for ring in rings for j in ring]
    scored = sorted(((_similarity(old_text, new_texts[j]), j) for j in candidates), reverse=True)
    alike = [(score, j) for score, j in scored if score >= SUCCESSOR_SIMILARITY]
    if len(alike) > 1 and alike[0][0] - alike[1][0] < SUCCESSOR_MARGIN:
        rivals = sorted(j + 1 for score, j in alike if alike[0][0] - score < SUCCESSOR_MARGIN)
        return _("passage §%(seq)s resembles more than one new passage (§%(seqs)s)") % {
            "seq": seq, "seqs": ", §".join(map(str, rivals))}
    if alike:
        # The passage was edited: its successor is the first place to look.
        successor = alike[0][1]
        result = attempt(successor)
        if isinstance(result, Placement):
            return result
        rings = [[successor - d, successor + d] for d in range(1, NEIGHBOUR_RADIUS + 1)]
        rings = [[j for j in ring if 0 <= j < len(new_texts)] for ring in rings]
    reason = _("the quote is no longer in passage §%(seq)s or its neighbours") % {"seq": seq}
    for ring in rings:
        finds = [r for r in (attempt(j) for j in ring) if isinstance(r, Placement)]
        if len(finds) > 1:
            return _("the quote is found in more than one passage (§%(seqs)s)") % {
                "seqs": ", §".join(str(f.index + 1) for f in finds)}
        if finds:
            return finds[0]
    return reason


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
            source._change_reason = f"imported from {source_file.file_name}"  # type: ignore[attr-defined]
            source.save()
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
    source._change_reason = reason  # type: ignore[attr-defined]
    source.save()  # through the model's rules: an approved source goes back to review

    # A passage whose text is unchanged keeps its curated role and quoted work.
    _expected, same = _expected_positions([p.text for p in old], new_texts)
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
    Passage.objects.bulk_update(changed, fields, batch_size=BATCH_SIZE)
    record_history(Passage, changed, history_type="~", reason=reason)
    n_old, n_new = len(old), len(source_file.segments)
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
            citation.version += 1  # type: ignore[attr-defined]
        citation_fields.append("version")
    # The quote and claim are unchanged, so a re-anchored citation keeps its review status.
    Citation.objects.bulk_update(moved, citation_fields, batch_size=BATCH_SIZE)
    record_history(Citation, moved, history_type="~", reason=f"re-anchored: {reason}")
    if n_old > n_new:
        Passage.objects.filter(source=source, seq__gt=n_new).delete()
    search_index.reindex([source])
    return ImportResult(source, "filled" if filled else "replaced", passages=n_new, moved=len(moved))
