"""Spreadsheets in and out: one django-import-export resource per curated model.

Records link by slug, never by database id, so a sheet exported from one
database imports into another; a passage is named by its source's slug and
its number (`jiang-diary:12`). An import is all or nothing: it runs in one
transaction, `full_clean()` runs on every row (so a citation's quote is
verified against its passage and a bad EDTF date is refused), and a single bad
row rolls back every row, with the errors listed by row and field.

Review state is never read from a file. The status column is exported for
information and ignored on import. A new record enters as a draft created by
the importing user; a row that changes a published record (or a name or alias
of one) becomes that record's pending revision through `archive.services`, and
the published version stays served until another person approves it. A
reviewer's import of a new record enters *in review*, last changed by that
reviewer, so four eyes still hold: another reviewer approves it, never the
one who imported it.

Every curated row is exported with its `version`. A row that changes an
existing record and carries a version other than the stored one was edited
from an older copy: it is refused, naming the row, the field and what
changed meanwhile (`archive.locking`), and so is the whole import. A sheet
without the column, or a row with it empty, is not checked.

Cells beginning with `=`, `+`, `-`, `@`, a tab or a carriage return would run
as formulas in a spreadsheet program; CSV and XLSX exports prefix them with an
apostrophe (and an apostrophe with another), and imports remove one leading
apostrophe, so an export imports back unchanged.

One module, longer than most: the resources are declarative, one per model,
and read best side by side with the widgets and the rules they share.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import tablib
from django.core.exceptions import ValidationError
from django.db.models import Model, QuerySet
from django.utils import timezone
from import_export import fields, resources, widgets
from import_export.formats import base_formats

from archive.locking import ConcurrentEdit
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
    Status,
    Unit,
    UnitAlias,
)
from archive.services import records, revisions
from archive.services.authorship import save_as
from archive.text import anchor
from archive.text.numbers import whole_number

from . import sheet_limits

# -- formats


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "'")


def escape_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def unescape_cell(value: Any) -> Any:
    if isinstance(value, str) and value.startswith("'"):
        return value[1:]
    return value


def _map_cells(dataset: tablib.Dataset, function: Any) -> tablib.Dataset:
    mapped = tablib.Dataset(headers=dataset.headers)
    for row in dataset:
        mapped.append([function(cell) for cell in row])
    return mapped


class SafeCSV(base_formats.CSV):
    """CSV whose cells never start a formula."""

    def export_data(self, dataset: tablib.Dataset, **kwargs: Any) -> Any:
        return _map_cells(dataset, escape_cell).export(self.get_title(), **kwargs)

    def create_dataset(self, in_stream: Any, **kwargs: Any) -> tablib.Dataset:
        return _map_cells(super().create_dataset(in_stream, **kwargs), unescape_cell)


class SafeXLSX(base_formats.XLSX):
    """XLSX whose text cells never start a formula."""

    def export_data(self, dataset: tablib.Dataset, **kwargs: Any) -> Any:
        return super().export_data(_map_cells(dataset, escape_cell), **kwargs)

    def create_dataset(self, in_stream: Any) -> tablib.Dataset:
        # Read lazily and stopped at the limits; an empty cell reads as None, the archive's text fields hold "".
        return _map_cells(sheet_limits.read_xlsx(in_stream), lambda cell: "" if cell is None else unescape_cell(cell))


SPREADSHEET_FORMATS = (SafeCSV, SafeXLSX, base_formats.JSON)


# -- widgets


class SlugWidget(widgets.ForeignKeyWidget):
    """A foreign key by slug; an unknown slug is a field error naming the slug."""

    def __init__(self, model: type[Model], **kwargs: Any) -> None:
        super().__init__(model, field="slug", **kwargs)

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        if value in (None, ""):
            return None
        try:
            return super().clean(str(value).strip(), row, **kwargs)
        except self.model.DoesNotExist as exc:
            raise ValueError(f"no {self.model._meta.verbose_name} with slug “{value}”") from exc


class SlugsWidget(widgets.ManyToManyWidget):
    """Many records by slug, separated by commas; every slug must exist."""

    def __init__(self, model: type[Model], **kwargs: Any) -> None:
        super().__init__(model, field="slug", separator=",", **kwargs)

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        if not value:
            return self.model.objects.none()
        slugs = [slug.strip() for slug in str(value).split(self.separator) if slug.strip()]
        found = self.model.objects.filter(slug__in=slugs)
        missing = sorted(set(slugs) - set(found.values_list("slug", flat=True)))
        if missing:
            raise ValueError(f"no {self.model._meta.verbose_name} with slug {', '.join(f'“{s}”' for s in missing)}")
        return found

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        if value is None:
            return ""
        return self.separator.join(sorted(related.slug for related in value.all()))


class PassageWidget(widgets.ForeignKeyWidget):
    """A passage by its source's slug and its number: `source-slug:seq`."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(Passage, **kwargs)

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> Any:
        if value in (None, ""):
            return None
        source_slug, sep, seq = str(value).strip().rpartition(":")
        number = whole_number(seq, max_digits=9)
        if not sep or not source_slug or number is None:
            raise ValueError(f"“{value}” is not a passage; write the source's slug and the number, e.g. hist:3")
        try:
            return Passage.objects.select_related("source").get(source__slug=source_slug, seq=number)
        except Passage.DoesNotExist as exc:
            raise ValueError(f"source “{source_slug}” has no passage {seq}") from exc

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        if value is None:
            return ""
        return f"{value.source.slug}:{value.seq}"


class ISODateTimeWidget(widgets.Widget):
    """A timezone-aware instant in ISO 8601, to the microsecond, so bounds round-trip exactly."""

    def clean(self, value: Any, row: Any = None, **kwargs: Any) -> dt.datetime | None:
        if value in (None, ""):
            return None
        if isinstance(value, dt.datetime):
            moment = value
        else:
            try:
                moment = dt.datetime.fromisoformat(str(value).strip())
            except ValueError as exc:
                raise ValueError(f"“{value}” is not an ISO 8601 date and time") from exc
        if timezone.is_naive(moment):
            moment = timezone.make_aware(moment)
        return moment

    def render(self, value: Any, obj: Any = None, **kwargs: Any) -> str:
        if value is None:
            return ""
        return timezone.localtime(value).isoformat()


# -- resources


def _user_can_review(user: Any, model: type[Model]) -> bool:
    return bool(user is not None and user.has_perm(f"{model._meta.app_label}.review_{model._meta.model_name}"))


class ArchiveResource(resources.ModelResource):
    """All or nothing, every row validated, unchanged rows skipped."""

    # Slugs or names of the related records this resource renders, for export.
    export_select_related: tuple[str, ...] = ()
    export_prefetch_related: tuple[str, ...] = ()

    class Meta:
        use_transactions = True
        skip_unchanged = True
        report_skipped = True
        clean_model_instances = True

    def import_data(self, dataset: tablib.Dataset, *args: Any, **kwargs: Any) -> Any:
        # The admin's confirm step does not ask for a rollback on validation
        # errors; an archive import is all or nothing whoever calls it.
        kwargs["rollback_on_validation_errors"] = True
        kwargs["use_transactions"] = True
        return super().import_data(dataset, *args, **kwargs)

    def filter_export(self, queryset: QuerySet, **kwargs: Any) -> QuerySet:
        queryset = super().filter_export(queryset, **kwargs)
        if self.export_select_related:
            queryset = queryset.select_related(*self.export_select_related)
        if self.export_prefetch_related:
            queryset = queryset.prefetch_related(*self.export_prefetch_related)
        return queryset

    def import_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        errors: dict[str, Any] = {}
        try:
            super().import_instance(instance, row, **kwargs)
        except ValidationError as exc:
            errors = exc.update_error_dict(errors)
        # Many-to-many values are written after the save; check them now, so
        # that an unknown slug is a field error of this row.
        for field in self.get_import_fields():
            if isinstance(field.widget, widgets.ManyToManyWidget) and field.column_name in row:
                try:
                    field.clean(row)
                except ValueError as exc:
                    errors[field.attribute] = ValidationError(str(exc), code="invalid")
        if errors:
            raise ValidationError(errors)


class CuratedResource(ArchiveResource):
    """A curated record by slug; its review state is set here, never read from the file."""

    status = fields.Field(attribute="status", column_name="status", readonly=True)
    # Exported, and checked on import (never written from the file).
    version = fields.Field(attribute="version", column_name="version", readonly=True, widget=widgets.IntegerWidget())

    class Meta(ArchiveResource.Meta):
        import_id_fields = ("slug",)

    def check_version(self, instance: Any, row: Any) -> None:
        """Refuse a row that changes a record edited since the sheet's copy of it."""
        if instance._state.adding or "version" not in row:
            return
        value = row["version"]
        if value in (None, ""):
            return
        try:
            claimed = int(str(value).strip())
        except ValueError as exc:
            raise ValidationError({"version": f"“{value}” is not a version number"}) from exc
        if claimed != instance.version:
            stale = ConcurrentEdit(instance, loaded_version=claimed, using=instance._state.db or "default")
            raise ValidationError({"version": stale.messages})

    def before_save_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        self.check_version(instance, row)
        user = kwargs.get("user")
        if user is not None and not user.is_authenticated:
            user = None
        if instance._state.adding:
            instance.created_by = user
            instance.status = Status.DRAFT
        instance.modified_by = user
        if (
            _user_can_review(user, type(instance))
            and instance.status in (Status.DRAFT, Status.REJECTED)
            and not records.is_published(instance)
        ):
            # Four eyes: the importing reviewer has just changed it, so another
            # reviewer approves it.
            instance.status = Status.IN_REVIEW
        self._importing_user = user
        super().before_save_instance(instance, row, **kwargs)

    def do_instance_save(self, instance: Any, is_create: bool) -> None:
        """A row of a published record proposes a change of it; any other row is saved as it stands."""
        user = getattr(self, "_importing_user", None)
        if not is_create and records.is_published(instance):
            revisions.propose_change(record=instance, by=user)
            return
        save_as(instance, by=user, reason="imported from a spreadsheet")

    def save_m2m(self, instance: Any, row: Any, **kwargs: Any) -> None:
        if records.is_published(instance):
            links = {
                field.attribute: field.clean(row)
                for field in self.get_import_fields()
                if isinstance(field.widget, widgets.ManyToManyWidget) and field.column_name in row
            }
            if links:
                revisions.propose_change(record=instance, by=getattr(self, "_importing_user", None), m2m=links)
            return
        super().save_m2m(instance, row, **kwargs)


class ChildResource(ArchiveResource):
    """A name or an alias, keyed by its record and the name; importing one changes its record."""

    parent_field: str = ""

    def before_import_row(self, row: Any, **kwargs: Any) -> None:
        # The record is part of the key, so an unknown slug would fail before
        # the fields are read; refuse it as an error of its field.
        field = self.fields[self.parent_field]
        if field.column_name in row:
            try:
                field.clean(row)
            except ValueError as exc:
                raise ValidationError({self.parent_field: str(exc)}) from exc
        super().before_import_row(row, **kwargs)

    def before_save_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        user = kwargs.get("user")
        self._importing_user = user if user is not None and user.is_authenticated else None
        super().before_save_instance(instance, row, **kwargs)

    def do_instance_save(self, instance: Any, is_create: bool) -> None:
        # Of a published record, the row becomes part of its pending revision.
        records.child_save(
            child=instance,
            parent_field=self.parent_field,
            by=getattr(self, "_importing_user", None),
            reason="imported from a spreadsheet",
        )


class SourceResource(CuratedResource):
    sha256 = fields.Field(attribute="sha256", column_name="sha256", readonly=True)
    file_name = fields.Field(attribute="file_name", column_name="file_name", readonly=True)

    class Meta(CuratedResource.Meta):
        model = Source
        fields = (
            "slug",
            "title",
            "author",
            "kind",
            "language",
            "date",
            "publisher",
            "publisher_place",
            "container_title",
            "url",
            "description",
            "sha256",
            "file_name",
            "status", "version",
        )


class PersonResource(CuratedResource):
    class Meta(CuratedResource.Meta):
        model = Person
        fields = ("slug", "name", "side", "birth", "death", "description", "marked_historical", "status", "version")


class PersonNameResource(ChildResource):
    parent_field = "person"
    person = fields.Field(attribute="person", column_name="person", widget=SlugWidget(Person))
    export_select_related = ("person",)

    class Meta(ArchiveResource.Meta):
        model = PersonName
        fields = ("person", "name", "kind", "script", "note")
        import_id_fields = ("person", "name")


class UnitResource(CuratedResource):
    parent = fields.Field(attribute="parent", column_name="parent", widget=SlugWidget(Unit))
    export_select_related = ("parent",)

    class Meta(CuratedResource.Meta):
        model = Unit
        fields = ("slug", "name", "echelon", "side", "parent", "description", "marked_historical", "status", "version")


class UnitAliasResource(ChildResource):
    parent_field = "unit"
    unit = fields.Field(attribute="unit", column_name="unit", widget=SlugWidget(Unit))
    export_select_related = ("unit",)

    class Meta(ArchiveResource.Meta):
        model = UnitAlias
        fields = ("unit", "name", "script")
        import_id_fields = ("unit", "name")


class PostResource(CuratedResource):
    person = fields.Field(attribute="person", column_name="person", widget=SlugWidget(Person))
    unit = fields.Field(attribute="unit", column_name="unit", widget=SlugWidget(Unit))
    export_select_related = ("person", "unit")

    class Meta(CuratedResource.Meta):
        model = Post
        fields = (
            "slug", "person", "unit", "title", "date_from", "date_to", "acting", "concurrent", "note", "status",
            "version",
        )


class LocationResource(CuratedResource):
    parent = fields.Field(attribute="parent", column_name="parent", widget=SlugWidget(Location))
    export_select_related = ("parent",)

    class Meta(CuratedResource.Meta):
        model = Location
        fields = (
            "slug",
            "name",
            "kind",
            "parent",
            "latitude",
            "longitude",
            "coordinate_precision",
            "description",
            "marked_historical",
            "status", "version",
        )


class LocationAliasResource(ChildResource):
    parent_field = "location"
    location = fields.Field(attribute="location", column_name="location", widget=SlugWidget(Location))
    export_select_related = ("location",)

    class Meta(ArchiveResource.Meta):
        model = LocationAlias
        fields = ("location", "name", "language", "note")
        import_id_fields = ("location", "name")


class EventResource(CuratedResource):
    parent = fields.Field(attribute="parent", column_name="parent", widget=SlugWidget(Event))
    locations = fields.Field(attribute="locations", column_name="locations", widget=SlugsWidget(Location))
    earliest = fields.Field(attribute="earliest", column_name="earliest", widget=ISODateTimeWidget())
    latest = fields.Field(attribute="latest", column_name="latest", widget=ISODateTimeWidget())
    export_select_related = ("parent",)
    export_prefetch_related = ("locations",)

    class Meta(CuratedResource.Meta):
        model = Event
        fields = (
            "slug",
            "title",
            "description",
            "kind",
            "date_text",
            "date",
            "earliest",
            "latest",
            "locations",
            "parent",
            "status", "version",
        )


class ParticipationResource(CuratedResource):
    event = fields.Field(attribute="event", column_name="event", widget=SlugWidget(Event))
    person = fields.Field(attribute="person", column_name="person", widget=SlugWidget(Person))
    unit = fields.Field(attribute="unit", column_name="unit", widget=SlugWidget(Unit))
    export_select_related = ("event", "person", "unit")

    class Meta(CuratedResource.Meta):
        model = Participation
        fields = ("slug", "event", "person", "unit", "role", "position", "note", "status", "version")


class CitationResource(CuratedResource):
    passage = fields.Field(attribute="passage", column_name="passage", widget=PassageWidget())
    person = fields.Field(attribute="person", column_name="person", widget=SlugWidget(Person))
    unit = fields.Field(attribute="unit", column_name="unit", widget=SlugWidget(Unit))
    location = fields.Field(attribute="location", column_name="location", widget=SlugWidget(Location))
    event = fields.Field(attribute="event", column_name="event", widget=SlugWidget(Event))
    post = fields.Field(attribute="post", column_name="post", widget=SlugWidget(Post))
    participation = fields.Field(
        attribute="participation", column_name="participation", widget=SlugWidget(Participation)
    )
    export_select_related = ("passage__source", "person", "unit", "location", "event", "post", "participation")

    class Meta(CuratedResource.Meta):
        model = Citation
        fields = (
            "slug",
            "passage",
            "quote",
            "start",
            "end",
            "claim",
            "rank",
            "person",
            "unit",
            "location",
            "event",
            "post",
            "participation",
            "status", "version",
        )

    def import_instance(self, instance: Any, row: Any, **kwargs: Any) -> None:
        super().import_instance(instance, row, **kwargs)
        # The offsets follow from the quote: `Citation.clean()` finds the quote
        # in its passage (near `start` if given) and refuses it when absent.
        if instance.quote:
            if instance.start is None:
                instance.start = 0
            if instance.passage_id:
                try:
                    found = anchor.locate(instance.passage.text, instance.quote, hint_start=instance.start)
                except (anchor.QuoteNotFound, anchor.AmbiguousQuote):
                    pass
                else:
                    instance.start, instance.end = found.start, found.end
            if instance.end is None or instance.end != instance.start + len(instance.quote):
                instance.end = instance.start + len(instance.quote)


RESOURCES: dict[type[Model], type[ArchiveResource]] = {
    Source: SourceResource,
    Person: PersonResource,
    PersonName: PersonNameResource,
    Unit: UnitResource,
    UnitAlias: UnitAliasResource,
    Post: PostResource,
    Location: LocationResource,
    LocationAlias: LocationAliasResource,
    Event: EventResource,
    Participation: ParticipationResource,
    Citation: CitationResource,
}
