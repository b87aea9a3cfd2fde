"""TEI P5 body of a source: passages as `<p>`, citations as inline names, and the text recovered exactly.

One module writes and reads the body, so the two stay each other's inverse:

* the body holds one `<div type="source" xml:space="preserve">`; each
  passage is a `<p n="SEQ">` and the separators between passages are the
  text between them when they are XML whitespace (a `\\r` is written as
  `&#13;`, which no parser normalises), else an `<ab type="separator">`
  holding them (a byte-order mark, a blank line of ideographic spaces);
* a citation is an inline `persName`, `orgName`, `placeName` or `rs` (with
  `@type` event, post or participation) around its quote, `@ref` the URL of
  the record, `@cert` from its rank, `@ana` pointing at its claim (an
  `interp` in the standOff). Names nest when one quote lies inside another;
  a quote that crosses another is marked by two `anchor`s instead, and a
  `span` of the standOff joins them (`@from`, `@to`, `@corresp` the record).

`read_body` turns such a body back into the text, its passages and the
mentions with their offsets; anything it does not understand is a
`TeiError` naming the element and its line.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lxml import etree

TEI_NS = "http://www.tei-c.org/ns/1.0"
XML_NS = "http://www.w3.org/XML/1998/namespace"
NSMAP = {None: TEI_NS}

CERT_OF_RANK = {"preferred": "high", "normal": "medium", "deprecated": "low"}
RANK_OF_CERT = {cert: rank for rank, cert in CERT_OF_RANK.items()}
# The element (and `@type` of `rs`) a mention of each kind of record is written as.
ELEMENT_OF_TARGET: dict[str, tuple[str, str | None]] = {
    "person": ("persName", None),
    "unit": ("orgName", None),
    "location": ("placeName", None),
    "event": ("rs", "event"),
    "post": ("rs", "post"),
    "participation": ("rs", "participation"),
}
TARGET_OF_ELEMENT = {value: key for key, value in ELEMENT_OF_TARGET.items()}
_XML_WHITESPACE = frozenset(" \t\r\n")


def tei(name: str) -> str:
    return f"{{{TEI_NS}}}{name}"


def xml_id(name: str) -> str:
    return f"{{{XML_NS}}}{name}"


class TeiError(ValueError):
    """TEI this archive cannot read: `element` and `line` say where."""

    def __init__(self, message: str, *, element: str = "", line: int | None = None) -> None:
        where = f"<{element}>" if element else ""
        if line is not None:
            where += f" at line {line}"
        super().__init__(f"{where}: {message}" if where else message)
        self.element = element
        self.line = line


@dataclass(frozen=True)
class Mention:
    """A citation in the text: `start`/`end` are offsets in passage `seq`."""

    seq: int
    start: int
    end: int
    target: str  # person, unit, location, event, post, participation
    ref: str
    cert: str | None
    claim: str
    ident: str = ""  # the citation's xml:id, when it has one


@dataclass
class Reading:
    text: str
    passages: list[tuple[int, int, int, str]] = field(default_factory=list)  # (seq, start, end, text)
    mentions: list[Mention] = field(default_factory=list)


# --- writing ------------------------------------------------------------------------------------


@dataclass
class Span:
    """A citation to mark in a passage."""

    start: int
    end: int
    target: str
    ref: str
    cert: str
    claim_id: str
    ident: str
    children: list[Span] = field(default_factory=list)


def _nest(spans: Iterable[Span]) -> tuple[list[Span], list[Span]]:
    """Spans as a forest by containment, and those that cross another (to be anchored)."""
    roots: list[Span] = []
    crossing: list[Span] = []
    stack: list[Span] = []
    for span in sorted(spans, key=lambda s: (s.start, -s.end, s.ident)):
        while stack and stack[-1].end <= span.start:
            stack.pop()
        if stack and span.end > stack[-1].end:
            crossing.append(span)
            continue
        (stack[-1].children if stack else roots).append(span)
        stack.append(span)
    return roots, crossing


def _not_xml(ch: str) -> bool:
    """A character XML 1.0 cannot hold, not even as a reference (C0 controls but tab and line ends, …)."""
    code = ord(ch)
    return (code < 0x20 and ch not in "\t\n\r") or 0xD800 <= code <= 0xDFFF or code in (0xFFFE, 0xFFFF)


def xml_safe(text: str) -> str:
    """`text` with each character XML cannot hold replaced by U+FFFD: for metadata, which need not come back exactly."""
    return "".join("\ufffd" if _not_xml(ch) else ch for ch in text)


def _append_plain(parent: Any, text: str) -> None:
    if not text:
        return
    if len(parent):
        parent[-1].tail = (parent[-1].tail or "") + text
    else:
        parent.text = (parent.text or "") + text


def _append_text(parent: Any, text: str) -> None:
    """Append `text`; a character XML cannot hold (a form feed in a source) becomes `<g type="char" n="U+000C"/>`."""
    start = 0
    for index, ch in enumerate(text):
        if _not_xml(ch):
            _append_plain(parent, text[start:index])
            glyph = etree.SubElement(parent, tei("g"))
            glyph.set("type", "char")
            glyph.set("n", f"U+{ord(ch):04X}")
            start = index + 1
    _append_plain(parent, text[start:])


def _name_element(span: Span) -> Any:
    name, type_ = ELEMENT_OF_TARGET[span.target]
    element = etree.Element(tei(name))
    if type_:
        element.set("type", type_)
    element.set(xml_id("id"), span.ident)
    element.set("ref", span.ref)
    element.set("cert", span.cert)
    element.set("ana", f"#{span.claim_id}")
    return element


def _fill(parent: Any, text: str, offset: int, spans: list[Span], points: dict[int, list[Any]]) -> None:
    """Write `text` (which starts at `offset` in the passage) into `parent`, marking `spans` and anchor `points`."""
    at = offset
    cuts = sorted({*(p for p in points if offset <= p <= offset + len(text))})

    def flush_to(stop: int) -> None:
        nonlocal at
        for point in [p for p in cuts if at <= p <= stop]:
            _append_text(parent, text[at - offset : point - offset])
            at = point
            for anchor in points.pop(point, []):
                parent.append(anchor)
        _append_text(parent, text[at - offset : stop - offset])
        at = stop

    for span in spans:
        flush_to(span.start)
        element = _name_element(span)
        parent.append(element)
        _fill(element, text[span.start - offset : span.end - offset], span.start, span.children, points)
        at = span.end
    flush_to(offset + len(text))


def passage_element(seq: int, text: str, spans: list[Span]) -> tuple[Any, list[Span]]:
    """`<p n=seq>` with its citations marked; returns it and the spans that were anchored instead."""
    paragraph = etree.Element(tei("p"))
    paragraph.set("n", str(seq))
    roots, crossing = _nest(spans)
    points: dict[int, list[Any]] = {}
    for span in crossing:
        for edge, at in (("start", span.start), ("end", span.end)):
            anchor = etree.Element(tei("anchor"))
            anchor.set(xml_id("id"), f"{span.ident}.{edge}")
            points.setdefault(at, []).append(anchor)
    _fill(paragraph, text, 0, roots, points)
    return paragraph, crossing


def span_element(span: Span) -> Any:
    name, type_ = ELEMENT_OF_TARGET[span.target]
    element = etree.Element(tei("span"))
    element.set(xml_id("id"), span.ident)
    element.set("type", f"{name}.{type_}" if type_ else name)
    element.set("from", f"#{span.ident}.start")
    element.set("to", f"#{span.ident}.end")
    element.set("corresp", span.ref)
    element.set("cert", span.cert)
    element.set("ana", f"#{span.claim_id}")
    return element


def add_separator(div: Any, separator: str) -> None:
    if not separator:
        return
    if set(separator) <= _XML_WHITESPACE:  # (XML's whitespace: never a character it cannot hold)
        _append_text(div, separator)
        return
    holder = etree.SubElement(div, tei("ab"))
    holder.set("type", "separator")
    _append_text(holder, separator)


# --- reading ------------------------------------------------------------------------------------


def _local(element: Any) -> str:
    tag = element.tag
    if not isinstance(tag, str):
        return _NODE_NAMES.get(tag, "processing-instruction")
    namespace, _brace, name = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    if namespace != TEI_NS:
        raise TeiError(f"is not in the TEI namespace ({namespace or 'no namespace'})", element=tag,
                       line=element.sourceline)
    return name


def _mention_of(element: Any, name: str, seq: int, start: int, end: int, claims: dict[str, str]) -> Mention:
    key = (name, element.get("type") if name == "rs" else None)
    if key not in TARGET_OF_ELEMENT:
        raise TeiError(f"type {element.get('type')!r} is not one of event, post, participation", element=name,
                       line=element.sourceline)
    ref = element.get("ref") or element.get("key") or ""
    ana = (element.get("ana") or "").removeprefix("#")
    return Mention(seq, start, end, TARGET_OF_ELEMENT[key], ref, element.get("cert"),
                   claims.get(ana, ""), element.get(xml_id("id")) or "")


_INLINE = {"persName", "orgName", "placeName", "rs"}
_NODE_NAMES = {etree.Comment: "comment", etree.Entity: "entity reference", etree.PI: "processing-instruction"}
_CODE_POINT = re.compile(r"U\+([0-9A-Fa-f]{4,6})")
_SEQ = re.compile(r"[1-9][0-9]{0,8}")


def seq_of(element: Any) -> int | None:
    """A passage's number, `@n` in ASCII digits (not ² nor ١), or None."""
    match = _SEQ.fullmatch(element.get("n") or "")
    return int(match.group()) if match else None


def _glyph(element: Any) -> str:
    """The character a `<g type="char" n="U+XXXX"/>` stands for: one a text can hold, not NUL nor half a pair."""
    match = _CODE_POINT.fullmatch(element.get("n") or "")
    code = int(match.group(1), 16) if match else -1
    if len(element) or element.text or not (0 < code < 0xD800 or 0xDFFF < code <= 0x10FFFF):
        raise TeiError("@n must name one character as U+XXXX (not U+0000 nor a surrogate), and the element be "
                       "empty", element="g", line=element.sourceline)
    return chr(code)


def _separator_text(holder: Any) -> str:
    pieces = [holder.text or ""]
    for child in holder:
        if not isinstance(child.tag, str) or _local(child) != "g" or child.get("type") != "char":
            raise TeiError("a separator holds only text and <g type=\"char\">", element="ab",
                           line=holder.sourceline)
        pieces += [_glyph(child), child.tail or ""]
    return "".join(pieces)


def _read_inline(parent: Any, seq: int, pieces: list[str], at: list[int], found: list[Mention],
                 anchors: dict[str, tuple[int, int]], claims: dict[str, str]) -> None:
    if parent.text:
        pieces.append(parent.text)
        at[0] += len(parent.text)
    for child in parent:
        if not isinstance(child.tag, str):
            # Skipped, an entity's text would be lost from the passage, a comment's place forgotten: refused.
            raise TeiError(f"a passage cannot hold a {_local(child)}", element=_local(parent),
                           line=child.sourceline)
        name = _local(child)
        if name in _INLINE:
            start = at[0]
            _read_inline(child, seq, pieces, at, found, anchors, claims)
            found.append(_mention_of(child, name, seq, start, at[0], claims))
        elif name == "g" and child.get("type") == "char":
            pieces.append(_glyph(child))
            at[0] += 1
        elif name == "anchor":
            ident = child.get(xml_id("id"))
            if not ident:
                raise TeiError("needs an xml:id", element=name, line=child.sourceline)
            anchors[ident] = (seq, at[0])
        else:
            raise TeiError("is not supported inside a passage (persName, orgName, placeName, rs and anchor are)",
                           element=name, line=child.sourceline)
        if child.tail:
            pieces.append(child.tail)
            at[0] += len(child.tail)


def read_claims(stand_off: Any | None) -> dict[str, str]:
    if stand_off is None:
        return {}
    return {interp.get(xml_id("id")): "".join(interp.itertext()) for interp in stand_off.iter(tei("interp"))
            if interp.get(xml_id("id"))}


def _read_spans(stand_off: Any | None, anchors: dict[str, tuple[int, int]], claims: dict[str, str]) -> list[Mention]:
    found: list[Mention] = []
    if stand_off is None:
        return found
    for span in stand_off.iter(tei("span")):
        start = anchors.get((span.get("from") or "").removeprefix("#"))
        end = anchors.get((span.get("to") or "").removeprefix("#"))
        if start is None or end is None or start[0] != end[0] or end[1] <= start[1]:
            raise TeiError("@from and @to must name two anchors in one passage, in order", element="span",
                           line=span.sourceline)
        name, _dot, type_ = (span.get("type") or "").partition(".")
        key = (name, type_ or None)
        if key not in TARGET_OF_ELEMENT:
            raise TeiError(f"@type {span.get('type')!r} names no kind of record", element="span",
                           line=span.sourceline)
        found.append(Mention(start[0], start[1], end[1], TARGET_OF_ELEMENT[key], span.get("corresp") or "",
                             span.get("cert"), claims.get((span.get("ana") or "").removeprefix("#"), ""),
                             span.get(xml_id("id")) or ""))
    return found


def read_body(root: Any) -> Reading:
    """The text, passages and mentions of a TEI document written as this module writes one."""
    if _local(root) != "TEI":
        raise TeiError("is not a TEI document (the root must be <TEI>)", element=_local(root), line=root.sourceline)
    body = root.find(f"{tei('text')}/{tei('body')}")
    if body is None:
        raise TeiError("has no <text><body>", element="TEI", line=root.sourceline)
    divs = [child for child in body if isinstance(child.tag, str)]
    if len(divs) != 1 or _local(divs[0]) != "div":
        raise TeiError("must hold one <div> with the passages", element="body", line=body.sourceline)
    div = divs[0]
    claims = read_claims(root.find(tei("standOff")))
    pieces: list[str] = [div.text or ""]
    if (div.text or "").strip(" \t\r\n"):
        raise TeiError("holds text outside a passage", element="div", line=div.sourceline)
    reading = Reading(text="")
    anchors: dict[str, tuple[int, int]] = {}
    at = [len(div.text or "")]
    expected = 1
    for child in div:
        if not isinstance(child.tag, str):
            raise TeiError("comments and processing instructions are not supported between passages",
                           element="div", line=child.sourceline)
        name = _local(child)
        if name == "p":
            seq = seq_of(child)
            if seq != expected:
                raise TeiError(f"@n must number passages 1, 2, 3 … (expected {expected})", element="p",
                               line=child.sourceline)
            expected += 1
            start = at[0]
            inner: list[str] = []
            position = [0]
            _read_inline(child, seq, inner, position, reading.mentions, anchors, claims)
            text = "".join(inner)
            if not text.strip():
                raise TeiError("a passage cannot be blank", element="p", line=child.sourceline)
            pieces.append(text)
            at[0] += len(text)
            reading.passages.append((seq, start, at[0], text))
        elif name == "ab" and child.get("type") == "separator":
            separator = _separator_text(child)
            pieces.append(separator)
            at[0] += len(separator)
        else:
            raise TeiError("is not supported in the body (passages are <p n=…>)", element=name,
                           line=child.sourceline)
        tail = child.tail or ""
        if tail.strip(" \t\r\n"):
            raise TeiError("text after it lies outside a passage", element=name, line=child.sourceline)
        pieces.append(tail)
        at[0] += len(tail)
    reading.mentions.extend(_read_spans(root.find(tei("standOff")), anchors, claims))
    reading.text = "".join(pieces)
    return reading
