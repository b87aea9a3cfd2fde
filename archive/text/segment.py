"""Cut a source text into passages whose offsets tile the original exactly.

Citations point at passages by code-point offsets into the full text, so the
split must lose nothing: the passages plus the separators between them have to
rebuild the input byte for byte. A passage is one non-blank line without its
terminator; terminators, blank lines and a leading BOM are separators.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Segment",
    "join_passages",
    "separators_of",
    "sha256_text",
    "split_passages",
    "verify_tiling",
]

BOM = "\ufeff"
# Only these three are line terminators; str.splitlines() would also split on
# U+2028, form feed, etc., which sources use inside paragraphs.
_LINE_END = re.compile(r"\r\n|\r|\n")
_TERMINATOR_CHARS = frozenset("\r\n")


@dataclass(frozen=True)
class Segment:
    """One passage: ``text == full_text[start:end]``, offsets in code points."""

    seq: int
    start: int
    end: int
    text: str


def sha256_text(text: str) -> str:
    """Hex SHA-256 of the UTF-8 encoding of ``text``."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_blank(line: str) -> bool:
    return line == "" or line.isspace()


def split_passages(text: str) -> list[Segment]:
    """Return the non-blank lines of ``text`` as numbered segments."""
    segments: list[Segment] = []
    line_start = 1 if text.startswith(BOM) else 0
    while True:
        match = _LINE_END.search(text, line_start)
        line_end = match.start() if match else len(text)
        line = text[line_start:line_end]
        if not _is_blank(line):
            segments.append(Segment(len(segments) + 1, line_start, line_end, line))
        if match is None:
            return segments
        line_start = match.end()


def separators_of(text: str, segments: Sequence[Segment]) -> list[str]:
    """Return the ``len(segments) + 1`` gaps: before the first, between, after the last."""
    gaps: list[str] = []
    prev_end = 0
    for seg in segments:
        gaps.append(text[prev_end : seg.start])
        prev_end = seg.end
    gaps.append(text[prev_end:])
    return gaps


def join_passages(text_length: int, segments: Sequence[Segment], separators: Sequence[str]) -> str:
    """Rebuild the full text from its segments and separators.

    Raises ValueError when the pieces do not line up with the recorded offsets
    or do not add up to ``text_length``.
    """
    if len(separators) != len(segments) + 1:
        raise ValueError(f"need {len(segments) + 1} separators for {len(segments)} segments, got {len(separators)}")
    parts: list[str] = []
    pos = 0
    for seg, sep in zip(segments, separators[:-1], strict=True):
        parts.append(sep)
        pos += len(sep)
        if pos != seg.start:
            raise ValueError(f"segment {seg.seq} starts at {seg.start}, but the pieces before it end at {pos}")
        if seg.end - seg.start != len(seg.text):
            raise ValueError(f"segment {seg.seq} spans {seg.start}..{seg.end} but holds {len(seg.text)} characters")
        parts.append(seg.text)
        pos += len(seg.text)
    parts.append(separators[-1])
    pos += len(separators[-1])
    if pos != text_length:
        raise ValueError(f"rebuilt text has {pos} characters, expected {text_length}")
    return "".join(parts)


def _gap_is_separator(gap: str, at_text_start: bool) -> bool:
    if at_text_start and gap.startswith(BOM):
        gap = gap[1:]
    return all(_is_blank(piece) for piece in _LINE_END.split(gap))


def verify_tiling(text: str, segments: Sequence[Segment]) -> None:
    """Check that ``segments`` are exactly the passages of ``text``.

    Raises ValueError naming the first segment (by seq and offsets) that is out
    of order, overlaps, disagrees with the text, is not a whole non-blank line,
    or is preceded by a gap that hides a passage.
    """
    length = len(text)
    prev_end = 0
    for index, seg in enumerate(segments, start=1):
        where = f"segment {seg.seq} [{seg.start}:{seg.end}]"
        if seg.seq != index:
            raise ValueError(f"{where}: seq should be {index}")
        if not 0 <= seg.start < seg.end <= length:
            raise ValueError(f"{where}: offsets outside text of length {length}")
        if seg.start < prev_end:
            raise ValueError(f"{where}: overlaps or precedes the previous segment")
        if text[seg.start : seg.end] != seg.text:
            raise ValueError(f"{where}: text does not match the source at its offsets")
        if _TERMINATOR_CHARS.intersection(seg.text) or _is_blank(seg.text):
            raise ValueError(f"{where}: not a single non-blank line")
        starts_line = seg.start == 0 or text[seg.start - 1] in _TERMINATOR_CHARS or (seg.start == 1 and text[0] == BOM)
        ends_line = seg.end == length or text[seg.end] in _TERMINATOR_CHARS
        if not (starts_line and ends_line):
            raise ValueError(f"{where}: does not cover a whole line")
        if not _gap_is_separator(text[prev_end : seg.start], prev_end == 0):
            raise ValueError(f"{where}: the gap before it contains a passage")
        prev_end = seg.end
    if not _gap_is_separator(text[prev_end:], prev_end == 0):
        raise ValueError("text after the last segment contains a passage")
