"""How a reader asked to read: the fiction mode and the time window, checked.

A bad value is a 400 that names its parameter, never a 500.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from urllib.parse import urlencode

from django.http import HttpRequest
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from archive.models.registry import FictionMode

# The retreat's three days, in Nanjing's time (UTC+8).
NANJING = dt.timezone(dt.timedelta(hours=8))
DEFAULT_FROM = dt.datetime(1937, 12, 11, tzinfo=NANJING)
DEFAULT_TO = dt.datetime(1937, 12, 14, tzinfo=NANJING)


class BadParameter(Exception):
    """A query parameter the room cannot read; the view answers 400 naming it."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.name = name
        self.message = message


def refuse_nul(request: HttpRequest) -> None:
    """PostgreSQL refuses a NUL character in any text it is sent: refused here, naming the parameter."""
    for name, values in request.GET.lists():
        if "\x00" in name or any("\x00" in value for value in values):
            raise BadParameter(name.replace("\x00", "\\0"), _("A parameter cannot contain a NUL character."))


def fiction_mode(request: HttpRequest) -> FictionMode:
    """Fiction is the reader's choice and off by default."""
    raw = request.GET.get("fiction", "")
    if raw == "":
        return FictionMode.EXCLUDE
    try:
        return FictionMode(raw)
    except ValueError:
        choices = ", ".join(mode.value for mode in FictionMode)
        raise BadParameter("fiction", _("“%(value)s” is not one of %(choices)s.") % {
            "value": raw, "choices": choices}) from None


def _moment(request: HttpRequest, name: str, default: dt.datetime) -> dt.datetime:
    raw = request.GET.get(name, "")
    if raw == "":
        return default
    try:
        parsed = parse_datetime(raw)
    except ValueError:
        parsed = None
    if parsed is None:
        try:
            day = dt.date.fromisoformat(raw)
        except ValueError:
            raise BadParameter(name, _("“%(value)s” is not a date or a time.") % {"value": raw}) from None
        parsed = dt.datetime.combine(day, dt.time.min)
    moment = parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=NANJING)
    return _comparable(moment, name, raw)


def _comparable(moment: dt.datetime, name: str, raw: str) -> dt.datetime:
    """A moment the database compares in UTC and the page shows in Nanjing time: both inside years 1 to 9999."""
    try:
        moment.astimezone(dt.UTC)
        timezone.localtime(moment)
    except OverflowError:
        raise BadParameter(name, _("“%(value)s” is beyond the calendar the archive compares (years 1 to 9999 in UTC).")
                           % {"value": raw}) from None
    return moment


@dataclass(frozen=True)
class Window:
    start: dt.datetime
    end: dt.datetime


def moment(request: HttpRequest, name: str, default: dt.datetime) -> dt.datetime:
    """One moment the reader asked for (Nanjing time unless an offset is given), or `default`."""
    return _moment(request, name, default)


def window(request: HttpRequest, default: Window | None = None) -> Window:
    """The stretch of time the timeline and the map show; Nanjing time unless an offset is given."""
    start = _moment(request, "from", default.start if default else DEFAULT_FROM)
    end = _moment(request, "to", default.end if default else DEFAULT_TO)
    if end <= start:
        raise BadParameter("to", _("The end of the window must come after its start."))
    return Window(start, end)


def query_suffix(mode: FictionMode, held: dict[str, str] | None = None) -> str:
    """What every link of a page carries so that the reader stays in their mode (and in the reading then, if held)."""
    pairs = {**({"fiction": mode.value} if mode is not FictionMode.EXCLUDE else {}), **(held or {})}
    return f"?{urlencode(pairs)}" if pairs else ""
