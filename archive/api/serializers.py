"""Serializers of the read-only API, in the shape the contract of DESIGN.md names.

They read what the selectors in `archive.selectors` prefetched (the
`visible_*` attributes) and never query on their own, so that the cost of a
page does not grow with its length. A related record is always a reference
`{slug, name, url}` (a place with its parent's), never a bare id.

One module, longer than most, on purpose: it is the API's whole contract, the
shapes the OpenAPI schema is generated from, and a reader compares the
documents best when they stand together.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote

from django.urls import get_script_prefix
from django.urls import reverse as django_reverse
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers

from archive.models import (
    Citation,
    Event,
    Location,
    LocationAlias,
    Participation,
    Passage,
    Person,
    PersonName,
    Post,
    Source,
    Statement,
    Unit,
    UnitAlias,
)
from archive.models.registry import TARGET_FIELDS
from archive.models.statements import FIELDS_OF, MULTI_VALUED, RANK_ORDER, Basis, parse_coordinates, preference

# A page of nested records holds a thousand links; resolving each through the
# URL resolver was a tenth of the time of a page. Each route is resolved once,
# with a placeholder, and filled in as `reverse` itself would quote the value.
_SLOT = "ARCHIVESLOT"
_SAFE = "!$&'()*+,;=/~:@"


@functools.lru_cache(maxsize=64)
def _route(name: str, key: str, prefix: str) -> str:
    """The route's path below the script prefix (`/api/v1/…`): the prefix is the request's, added by `base`."""
    return "/" + django_reverse(name, kwargs={key: _SLOT})[len(prefix):]


def request_origin(request: Any) -> str:
    """`scheme://host` of the request and its script prefix (without its last slash), worked out once per request.

    Every URL of a document begins with it. A stored document is built with a
    mark in its place (`archive.api.stored`), filled in for each reader.
    """
    origin = getattr(request, "_archive_origin", None)
    if origin is None:
        # As `build_absolute_uri` writes it: a site mounted below a SCRIPT_NAME has its URLs below it.
        origin = f"{request.scheme}://{request.get_host()}{get_script_prefix().rstrip('/')}"
        request._archive_origin = origin
    return origin


def reverse(name: str, *, kwargs: dict[str, Any], request: Any) -> str:
    """An absolute URL without the request's `format`, which DRF's reverse would carry over:
    a record's URL names the record, not the format it was read in."""
    ((key, value),) = kwargs.items()
    path = _route(name, key, get_script_prefix()).replace(_SLOT, quote(str(value), safe=_SAFE), 1)
    if request is None:
        return get_script_prefix().rstrip("/") + path
    return request_origin(request) + path


# --- references ---------------------------------------------------------------------

_DETAIL_ROUTES: dict[type, str] = {
    Source: "api:source-detail",
    Person: "api:person-detail",
    Unit: "api:unit-detail",
    Location: "api:location-detail",
    Event: "api:event-detail",
}


def record_url(record: Any, request: Any) -> str:
    return reverse(_DETAIL_ROUTES[type(record)], kwargs={"slug": record.slug}, request=request)


def record_name(record: Any) -> str:
    return record.title if isinstance(record, Source | Event) else record.name


def ref(record: Any, request: Any) -> dict[str, Any] | None:
    if record is None:
        return None
    return {"slug": record.slug, "name": record_name(record), "url": record_url(record, request)}


def place_ref(place: Location | None, request: Any) -> dict[str, Any] | None:
    if place is None:
        return None
    return {**ref(place, request), "parent": ref(place.parent, request)}  # type: ignore[dict-item]  # ref answers None for no parent


class RefSerializer(serializers.Serializer):
    """A related record as a reader sees it: who or what, and where to read more."""

    slug = serializers.SlugField()
    name = serializers.CharField()
    url = serializers.URLField()


class PlaceRefSerializer(RefSerializer):
    parent = RefSerializer(allow_null=True)


def _request(serializer: serializers.Field) -> Any:
    return serializer.context.get("request")


# --- citations ------------------------------------------------------------------------


def passage_url(passage_id: int, request: Any) -> str:
    return reverse("api:passage-detail", kwargs={"pk": passage_id}, request=request)


def citation_url(citation_id: int, request: Any) -> str:
    return reverse("api:citation-detail", kwargs={"pk": citation_id}, request=request)


class NestedCitationSerializer(serializers.ModelSerializer):
    """A citation inside the record it is evidence for."""

    url = serializers.SerializerMethodField()
    source = serializers.SerializerMethodField()  # type: ignore[assignment]  # named like Field.source or .parent
    passage = serializers.SerializerMethodField()
    seq = serializers.IntegerField(source="passage.seq")

    class Meta:
        model = Citation
        fields = ["id", "url", "source", "passage", "seq", "quote", "claim", "rank"]

    def get_url(self, citation: Citation) -> str:
        return citation_url(citation.pk, _request(self))

    @extend_schema_field(RefSerializer)
    def get_source(self, citation: Citation) -> dict[str, Any] | None:
        return ref(citation.passage.source, _request(self))

    def get_passage(self, citation: Citation) -> str:
        return passage_url(citation.passage_id, _request(self))


def nested_citation(citation: Citation, request: Any) -> dict[str, Any]:
    """What `NestedCitationSerializer` gives, built directly: a serializer made
    per record for its citations was most of the time of a page of events.
    A test holds the two equal."""
    return {
        "id": citation.pk,
        "url": citation_url(citation.pk, request),
        "source": ref(citation.passage.source, request),
        "passage": passage_url(citation.passage_id, request),
        "seq": citation.passage.seq,
        "quote": citation.quote,
        "claim": citation.claim,
        "rank": citation.rank,
    }


class CitedMixin(serializers.Serializer):
    citations = serializers.SerializerMethodField()

    @extend_schema_field(NestedCitationSerializer(many=True))
    def get_citations(self, record: Any) -> list[dict[str, Any]]:
        request = _request(self)
        return [nested_citation(citation, request) for citation in record.visible_citations]


# --- statements -------------------------------------------------------------------------
# Each stated field of a record: the value the archive shows and every account
# the reader's fiction mode lets through, with its citations. The selectors
# prefetch the visible statements (`visible_statements`, each annotated with
# `fictional` and holding its `visible_citations`); the choice is made here,
# in Python, as `archive.statements.chosen` makes it.

_DATETIME = serializers.DateTimeField()


def _moment(value: Any) -> str | None:
    return _DATETIME.to_representation(value) if value is not None else None


def visible_accounts(record: Any) -> dict[str, list[Statement]]:
    """The record's visible statements by field, best rank first; a field with none maps to []."""
    grouped: dict[str, list[Statement]] = {str(name): [] for name in FIELDS_OF[record._meta.model_name]}
    for statement in getattr(record, "visible_statements", ()):
        grouped.setdefault(statement.field, []).append(statement)
    for entries in grouped.values():
        entries.sort(key=preference)
    return grouped


def shown(field_name: str, entries: list[Statement]) -> list[Statement]:
    """What the record shows: every live account of a multi-valued field, else the first of the best."""
    live = [st for st in entries if st.rank != "deprecated"]
    return live if field_name in MULTI_VALUED else live[:1]


def statement_account(statement: Statement, request: Any) -> dict[str, Any]:
    return {
        "value": statement.value,
        "as_written": statement.as_written,
        "earliest": _moment(statement.earliest),
        "latest": _moment(statement.latest),
        "rank": statement.rank,
        "basis": statement.basis,
        "reasoning": statement.reasoning,
        "reference": statement.reference,
        "fictional": bool(getattr(statement, "fictional", False)),
        "note": statement.note,
        "citations": [nested_citation(citation, request) for citation in getattr(statement, "visible_citations", ())],
    }


def statements_document(record: Any, request: Any) -> dict[str, Any]:
    """Each field with a visible account: its value and accounts. A field with none is left out."""
    document: dict[str, Any] = {}
    for field_name, entries in visible_accounts(record).items():
        if not entries:
            continue
        chosen = shown(field_name, entries)
        if field_name in MULTI_VALUED:
            value: Any = [st.value for st in chosen]
        else:
            value = chosen[0].value if chosen else None
        document[field_name] = {"value": value, "accounts": [statement_account(st, request) for st in entries]}
    return document


class StatementAccountSerializer(serializers.Serializer):
    """One account of a field: a value, its rank, and the citations that give it."""

    value = serializers.CharField(help_text="EDTF for a date, a place's slug, a role, “lat,lon” for coordinates.")
    as_written = serializers.CharField()
    earliest = serializers.DateTimeField(allow_null=True)
    latest = serializers.DateTimeField(allow_null=True)
    rank = serializers.ChoiceField(choices=list(RANK_ORDER))
    basis = serializers.ChoiceField(
        choices=Basis.values,
        help_text="stated: a cited quote says the value; inferred: it follows from the cited passages (the "
        "premises), as `reasoning` says, and is never shown over a stated account; reference: no text of the "
        "archive gives it, the work named in `reference` does.",
    )
    reasoning = serializers.CharField(help_text="Of an inferred account: how the value follows from its citations.")
    reference = serializers.CharField(help_text="Of a reference account: the work that gives the value.")
    fictional = serializers.BooleanField(help_text="All its citations come from fiction.")
    note = serializers.CharField()
    citations = NestedCitationSerializer(many=True)


class FieldStatementsSerializer(serializers.Serializer):
    value = serializers.CharField(allow_null=True, help_text="The value the archive shows in this fiction mode.")
    accounts = StatementAccountSerializer(many=True)


class MultiFieldStatementsSerializer(serializers.Serializer):
    value = serializers.ListField(child=serializers.CharField(), help_text="Every value the archive shows.")
    accounts = StatementAccountSerializer(many=True)


def _statements_schema(kind: str) -> serializers.Serializer:
    fields: dict[str, serializers.Field] = {
        str(name): (MultiFieldStatementsSerializer(required=False) if name in MULTI_VALUED
                    else FieldStatementsSerializer(required=False))
        for name in FIELDS_OF[kind]
    }
    return inline_serializer(f"{kind.capitalize()}Statements", fields)


class StatedMixin(serializers.Serializer):
    """`statements`, and the stated fields of the record shown from them.

    A field with visible statements shows the chosen one. A field with none
    visible keeps the record's column, which holds the choice of the record's
    own nature (`archive.statements.statement_apply`): a historical event whose
    only date is a novel's has no date there, so none leaks into the default view.
    """

    statements = serializers.SerializerMethodField()

    def get_statements(self, record: Any) -> dict[str, Any]:
        return statements_document(record, _request(self))

    def stated_values(self, record: Any) -> dict[str, list[Statement]]:
        return {name: shown(name, entries) for name, entries in visible_accounts(record).items() if entries}


def _target_url(citation: Citation, request: Any) -> str | None:
    """The API URL of the record a citation is evidence for; a post or a
    participation is shown inside its person's or event's record."""
    if (post := citation.post) is not None:
        return f"{record_url(post.person, request)}#post-{post.slug}"
    if (participation := citation.participation) is not None:
        return f"{record_url(participation.event, request)}#participation-{participation.slug}"
    target = citation.target
    return record_url(target, request) if target is not None else None


def citation_target(citation: Citation, request: Any) -> dict[str, Any]:
    field = citation.target_field
    target = citation.target
    assert target is not None  # a CHECK constraint: every citation has exactly one target
    name = record_name(target) if isinstance(target, Source | Event | Person | Unit | Location) else str(target)
    return {"type": field, "slug": target.slug, "name": name, "url": _target_url(citation, request)}


class CitationSerializer(serializers.ModelSerializer):
    """A citation as a record: the quote, where it is, and what it is evidence for."""

    url = serializers.SerializerMethodField()
    fictional = serializers.BooleanField(source="passage.source.is_fiction")
    source = serializers.SerializerMethodField()  # type: ignore[assignment]  # named like Field.source or .parent
    passage = serializers.SerializerMethodField()
    seq = serializers.IntegerField(source="passage.seq")
    target = serializers.SerializerMethodField()

    class Meta:
        model = Citation
        fields = [
            "id", "url", "slug", "fictional", "source", "passage", "seq", "quote", "start", "end", "claim", "rank",
            "target",
        ]

    def get_url(self, citation: Citation) -> str:
        return citation_url(citation.pk, _request(self))

    @extend_schema_field(RefSerializer)
    def get_source(self, citation: Citation) -> dict[str, Any] | None:
        return ref(citation.passage.source, _request(self))

    def get_passage(self, citation: Citation) -> str:
        return passage_url(citation.passage_id, _request(self))

    @extend_schema_field(
        inline_serializer(
            "CitationTarget",
            {
                "type": serializers.ChoiceField(choices=list(TARGET_FIELDS)),
                "slug": serializers.SlugField(),
                "name": serializers.CharField(),
                "url": serializers.URLField(),
            },
        )
    )
    def get_target(self, citation: Citation) -> dict[str, Any]:
        return citation_target(citation, _request(self))


# --- sources and passages ---------------------------------------------------------------


class SourceSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    fictional = serializers.BooleanField(source="is_fiction")
    source_url = serializers.CharField(source="url", help_text="Where the work can be read, if anywhere.")
    passages = serializers.SerializerMethodField()

    class Meta:
        model = Source
        fields = [
            "url", "slug", "title", "author", "kind", "fictional", "language", "date", "publisher",
            "publisher_place", "container_title", "source_url", "description", "length", "sha256", "file_name",
            "passages",
        ]

    def get_url(self, source: Source) -> str:
        return record_url(source, _request(self))

    def get_passages(self, source: Source) -> str:
        return reverse("api:source-passages", kwargs={"slug": source.slug}, request=_request(self))


class PassageSerializer(CitedMixin, serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    fictional = serializers.BooleanField(source="source.is_fiction")
    source = serializers.SerializerMethodField()  # type: ignore[assignment]  # named like Field.source or .parent
    quotes = serializers.SerializerMethodField()

    class Meta:
        model = Passage
        fields = ["id", "url", "fictional", "source", "seq", "text", "start", "end", "role", "sha256", "quotes",
                  "citations"]

    def get_url(self, passage: Passage) -> str:
        return passage_url(passage.pk, _request(self))

    @extend_schema_field(RefSerializer)
    def get_source(self, passage: Passage) -> dict[str, Any] | None:
        return ref(passage.source, _request(self))

    @extend_schema_field(RefSerializer(allow_null=True))
    def get_quotes(self, passage: Passage) -> dict[str, Any] | None:
        quoted = passage.quotes
        if quoted is None or quoted.status != "approved":
            return None
        return ref(quoted, _request(self))


# --- persons and units ---------------------------------------------------------------------


class PersonNameSerializer(serializers.ModelSerializer):
    class Meta:
        model = PersonName
        fields = ["name", "kind", "script", "note"]


class UnitAliasSerializer(serializers.ModelSerializer):
    class Meta:
        model = UnitAlias
        fields = ["name", "script"]


@extend_schema_field(RefSerializer)
class RefField(serializers.Field):
    """A reference to the related record at `source`: `{slug, name, url}`, or null."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, value: Any) -> dict[str, Any] | None:
        return ref(value, self.context.get("request"))


class PostSerializer(StatedMixin, CitedMixin, serializers.ModelSerializer):
    fictional = serializers.BooleanField()
    person = RefField()
    unit = RefField()
    statements = serializers.SerializerMethodField()

    class Meta:
        model = Post
        fields = ["slug", "fictional", "person", "unit", "title", "date_from", "date_to", "acting", "concurrent",
                  "note", "citations", "statements"]

    @extend_schema_field(_statements_schema("post"))
    def get_statements(self, record: Any) -> dict[str, Any]:
        return statements_document(record, _request(self))

    def to_representation(self, post: Post) -> dict[str, Any]:
        data = super().to_representation(post)
        for name, chosen in self.stated_values(post).items():
            data[name] = chosen[0].value if chosen else ("" if name != "title" else data[name])
        return data


class ParticipationSerializer(StatedMixin, CitedMixin, serializers.ModelSerializer):
    fictional = serializers.BooleanField()
    event = RefField()
    person = RefField(allow_null=True)
    unit = RefField(allow_null=True)
    statements = serializers.SerializerMethodField()

    class Meta:
        model = Participation
        fields = ["slug", "fictional", "event", "person", "unit", "role", "position", "note", "citations",
                  "statements"]

    @extend_schema_field(_statements_schema("participation"))
    def get_statements(self, record: Any) -> dict[str, Any]:
        return statements_document(record, _request(self))

    def to_representation(self, participation: Participation) -> dict[str, Any]:
        data = super().to_representation(participation)
        chosen = self.stated_values(participation).get("role")
        if chosen:
            data["role"] = chosen[0].value
        return data


class _RecordSerializer(CitedMixin, serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    fictional = serializers.BooleanField()

    def get_url(self, record: Any) -> str:
        return record_url(record, _request(self))


class PersonSerializer(StatedMixin, _RecordSerializer):
    names = PersonNameSerializer(many=True)
    posts = PostSerializer(source="visible_posts", many=True)
    participations = ParticipationSerializer(source="visible_participations", many=True)
    statements = serializers.SerializerMethodField()

    class Meta:
        model = Person
        fields = ["url", "slug", "name", "fictional", "marked_historical", "side", "birth", "death", "description",
                  "names", "posts", "participations", "citations", "statements"]

    @extend_schema_field(_statements_schema("person"))
    def get_statements(self, record: Any) -> dict[str, Any]:
        return statements_document(record, _request(self))

    def to_representation(self, person: Person) -> dict[str, Any]:
        data = super().to_representation(person)
        for name, chosen in self.stated_values(person).items():
            data[name] = chosen[0].value if chosen else ""
        return data


class UnitSerializer(_RecordSerializer):
    aliases = UnitAliasSerializer(many=True)
    parent = RefField(allow_null=True)  # type: ignore[assignment]  # named like Field.source or .parent
    children = serializers.SerializerMethodField()
    posts = PostSerializer(source="visible_posts", many=True)

    class Meta:
        model = Unit
        fields = ["url", "slug", "name", "fictional", "marked_historical", "echelon", "side", "description",
                  "aliases", "parent", "children", "posts", "citations"]

    @extend_schema_field(RefSerializer(many=True))
    def get_children(self, unit: Unit) -> list[dict[str, Any] | None]:
        return [ref(child, _request(self)) for child in unit.visible_children]  # type: ignore[attr-defined]  # selectors prefetch it


# --- places ---------------------------------------------------------------------------------


class LocationAliasSerializer(serializers.ModelSerializer):
    class Meta:
        model = LocationAlias
        fields = ["name", "language", "note"]


class LocationSerializer(StatedMixin, _RecordSerializer):
    aliases = LocationAliasSerializer(many=True)
    parent = serializers.SerializerMethodField()  # type: ignore[assignment]  # named like Field.source or .parent
    latitude = serializers.FloatField(allow_null=True)
    longitude = serializers.FloatField(allow_null=True)
    statements = serializers.SerializerMethodField()

    class Meta:
        model = Location
        fields = ["url", "slug", "name", "fictional", "marked_historical", "kind", "description", "aliases",
                  "parent", "latitude", "longitude", "coordinate_precision", "citations", "statements"]

    @extend_schema_field(_statements_schema("location"))
    def get_statements(self, record: Any) -> dict[str, Any]:
        return statements_document(record, _request(self))

    def to_representation(self, location: Location) -> dict[str, Any]:
        data = super().to_representation(location)
        chosen = self.stated_values(location).get("coordinates")
        if chosen:
            latitude, longitude = parse_coordinates(chosen[0].value)
            data["latitude"], data["longitude"] = float(latitude), float(longitude)
        return data

    @extend_schema_field(PlaceRefSerializer(allow_null=True))
    def get_parent(self, location: Location) -> dict[str, Any] | None:
        return place_ref(location.parent, _request(self))


# --- events -----------------------------------------------------------------------------------


class EventSerializer(StatedMixin, _RecordSerializer):
    locations = serializers.SerializerMethodField()
    parent = RefField(allow_null=True)  # type: ignore[assignment]  # named like Field.source or .parent
    children = serializers.SerializerMethodField()
    participations = ParticipationSerializer(source="visible_participations", many=True)
    statements = serializers.SerializerMethodField()

    class Meta:
        model = Event
        fields = ["url", "slug", "title", "fictional", "kind", "description", "date_text", "date", "earliest",
                  "latest", "locations", "parent", "children", "participations", "citations", "statements"]

    @extend_schema_field(_statements_schema("event"))
    def get_statements(self, record: Any) -> dict[str, Any]:
        return statements_document(record, _request(self))

    @extend_schema_field(PlaceRefSerializer(many=True))
    def get_locations(self, event: Event) -> list[dict[str, Any] | None]:
        places: Iterable[Location] = event.locations.all()
        accounts = visible_accounts(event).get("location")
        if accounts:
            stated = {st.value for st in shown("location", accounts)}
            places = [place for place in places if place.slug in stated]
        return [place_ref(place, _request(self)) for place in places]

    def to_representation(self, event: Event) -> dict[str, Any]:
        data = super().to_representation(event)
        stated = self.stated_values(event)
        if "date" in stated:
            best = stated["date"][0] if stated["date"] else None
            data["date"] = best.value if best else ""
            data["date_text"] = best.as_written if best else ""
            data["earliest"] = _moment(best.earliest) if best else None
            data["latest"] = _moment(best.latest) if best else None
        return data

    @extend_schema_field(RefSerializer(many=True))
    def get_children(self, event: Event) -> list[dict[str, Any] | None]:
        return [ref(child, _request(self)) for child in event.visible_children]  # type: ignore[attr-defined]  # selectors prefetch it


__all__ = [
    "CitationSerializer",
    "EventSerializer",
    "LocationSerializer",
    "NestedCitationSerializer",
    "PassageSerializer",
    "PersonSerializer",
    "SourceSerializer",
    "UnitSerializer",
]
