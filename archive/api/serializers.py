"""Serializers of the read-only API, in the shape the contract of DESIGN.md names.

They read what the selectors in `archive.selectors` prefetched (the
`visible_*` attributes) and never query on their own, so that the cost of a
page does not grow with its length. A related record is always a reference
`{slug, name, url}` (a place with its parent's), never a bare id.
"""

from __future__ import annotations

import functools
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
    Unit,
    UnitAlias,
)

# A page of nested records holds a thousand links; resolving each through the
# URL resolver was a tenth of the time of a page. Each route is resolved once,
# with a placeholder, and filled in as `reverse` itself would quote the value.
_SLOT = "ARCHIVESLOT"
_SAFE = "!$&'()*+,;=/~:@"


@functools.lru_cache(maxsize=64)
def _route(name: str, key: str, prefix: str) -> str:
    return django_reverse(name, kwargs={key: _SLOT})


def _origin(request: Any) -> str:
    """`scheme://host` of the request, worked out once per request."""
    origin = getattr(request, "_archive_origin", None)
    if origin is None:
        origin = request.build_absolute_uri("/")[:-1]
        request._archive_origin = origin
    return origin


def reverse(name: str, *, kwargs: dict[str, Any], request: Any) -> str:
    """An absolute URL without the request's `format`, which DRF's reverse would carry over:
    a record's URL names the record, not the format it was read in."""
    ((key, value),) = kwargs.items()
    path = _route(name, key, get_script_prefix()).replace(_SLOT, quote(str(value), safe=_SAFE), 1)
    return _origin(request) + path if request is not None else path


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
    return {**ref(place, request), "parent": ref(place.parent, request)}  # type: ignore[dict-item]


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
    source = serializers.SerializerMethodField()
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


def _target_url(citation: Citation, request: Any) -> str | None:
    """The API URL of the record a citation is evidence for; a post or a
    participation is shown inside its person's or event's record."""
    if citation.post_id:
        return f"{record_url(citation.post.person, request)}#post-{citation.post.slug}"
    if citation.participation_id:
        return f"{record_url(citation.participation.event, request)}#participation-{citation.participation.slug}"
    target = citation.target
    return record_url(target, request) if target is not None else None


def citation_target(citation: Citation, request: Any) -> dict[str, Any]:
    field = citation.target_field
    target = citation.target
    name = record_name(target) if isinstance(target, Source | Event | Person | Unit | Location) else str(target)
    return {"type": field, "slug": target.slug, "name": name, "url": _target_url(citation, request)}


class CitationSerializer(serializers.ModelSerializer):
    """A citation as a record: the quote, where it is, and what it is evidence for."""

    url = serializers.SerializerMethodField()
    fictional = serializers.BooleanField(source="passage.source.is_fiction")
    source = serializers.SerializerMethodField()
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
                "type": serializers.ChoiceField(
                    choices=["person", "unit", "location", "event", "post", "participation"]
                ),
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
    source = serializers.SerializerMethodField()
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


class PostSerializer(CitedMixin, serializers.ModelSerializer):
    fictional = serializers.BooleanField()
    person = RefField()
    unit = RefField()

    class Meta:
        model = Post
        fields = ["slug", "fictional", "person", "unit", "title", "date_from", "date_to", "acting", "concurrent",
                  "note", "citations"]


class ParticipationSerializer(CitedMixin, serializers.ModelSerializer):
    fictional = serializers.BooleanField()
    event = RefField()
    person = RefField(allow_null=True)
    unit = RefField(allow_null=True)

    class Meta:
        model = Participation
        fields = ["slug", "fictional", "event", "person", "unit", "role", "position", "note", "citations"]


class _RecordSerializer(CitedMixin, serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    fictional = serializers.BooleanField()

    def get_url(self, record: Any) -> str:
        return record_url(record, _request(self))


class PersonSerializer(_RecordSerializer):
    names = PersonNameSerializer(many=True)
    posts = PostSerializer(source="visible_posts", many=True)
    participations = ParticipationSerializer(source="visible_participations", many=True)

    class Meta:
        model = Person
        fields = ["url", "slug", "name", "fictional", "marked_historical", "side", "birth", "death", "description",
                  "names", "posts", "participations", "citations"]


class UnitSerializer(_RecordSerializer):
    aliases = UnitAliasSerializer(many=True)
    parent = RefField(allow_null=True)
    children = serializers.SerializerMethodField()
    posts = PostSerializer(source="visible_posts", many=True)

    class Meta:
        model = Unit
        fields = ["url", "slug", "name", "fictional", "marked_historical", "echelon", "side", "description",
                  "aliases", "parent", "children", "posts", "citations"]

    @extend_schema_field(RefSerializer(many=True))
    def get_children(self, unit: Unit) -> list[dict[str, Any] | None]:
        return [ref(child, _request(self)) for child in unit.visible_children]


# --- places ---------------------------------------------------------------------------------


class LocationAliasSerializer(serializers.ModelSerializer):
    class Meta:
        model = LocationAlias
        fields = ["name", "language", "note"]


class LocationSerializer(_RecordSerializer):
    aliases = LocationAliasSerializer(many=True)
    parent = serializers.SerializerMethodField()
    latitude = serializers.FloatField(allow_null=True)
    longitude = serializers.FloatField(allow_null=True)

    class Meta:
        model = Location
        fields = ["url", "slug", "name", "fictional", "marked_historical", "kind", "description", "aliases",
                  "parent", "latitude", "longitude", "coordinate_precision", "citations"]

    @extend_schema_field(PlaceRefSerializer(allow_null=True))
    def get_parent(self, location: Location) -> dict[str, Any] | None:
        return place_ref(location.parent, _request(self))


# --- events -----------------------------------------------------------------------------------


class EventSerializer(_RecordSerializer):
    locations = serializers.SerializerMethodField()
    parent = RefField(allow_null=True)
    children = serializers.SerializerMethodField()
    participations = ParticipationSerializer(source="visible_participations", many=True)

    class Meta:
        model = Event
        fields = ["url", "slug", "title", "fictional", "kind", "description", "date_text", "date", "earliest",
                  "latest", "locations", "parent", "children", "participations", "citations"]

    @extend_schema_field(PlaceRefSerializer(many=True))
    def get_locations(self, event: Event) -> list[dict[str, Any] | None]:
        return [place_ref(place, _request(self)) for place in event.locations.all()]

    @extend_schema_field(RefSerializer(many=True))
    def get_children(self, event: Event) -> list[dict[str, Any] | None]:
        return [ref(child, _request(self)) for child in event.visible_children]


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
