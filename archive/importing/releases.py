"""Make a release: a numbered, dated, immutable snapshot of everything the archive publishes.

One transaction reads the published archive once and stores, beside the
release's row, its files, each with its SHA-256:

- ``collection.zip``: the published records in the export's layout, which
  `load_collection --dir` loads;
- ``sources.csl.json`` (CSL-JSON), ``locations.geojson`` (GeoJSON) and
  ``tei/<source>.xml`` (TEI P5 with the citations), built by the API's own
  format builders (`archive.api.formats`, `archive.api.tei`);
- ``CHANGELOG.md``: the records added since the release before and the
  approved revisions (changes, reverts, merges, deletions) with their reasons;
- ``CITATION.cff``: how to cite the release, naming the curators who contributed;
- ``SHA256SUMS``: the checksums of the files above, in the format `sha256sum -c` reads.

A release is never changed once made: the database refuses it
(`archive.db.release_triggers`). Made inside a transaction that fails or is
killed half way, nothing of it is left.
"""

from __future__ import annotations

import hashlib
import io
import json
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.handlers.wsgi import WSGIRequest
from django.db import IntegrityError, models, transaction
from django.http.request import validate_host
from django.utils import timezone
from django.utils.translation import gettext as _

from archive import selectors
from archive.api import formats, tei
from archive.models import (
    Citation,
    Location,
    Participation,
    Post,
    Release,
    ReleaseFile,
    Revision,
    RevisionState,
    Source,
    Statement,
    Status,
)
from archive.models.registry import CURATED_MODELS

from .export import write_published

__all__ = ["ReleaseError", "make_release", "verify"]

_CHANGE_OF_KIND = {"change": "changed", "revert": "reverted", "delete": "deleted", "merge": "merged"}
# Every file inside the zip gets this time, so that the same records give the same bytes.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


class ReleaseError(ValueError):
    """The release cannot be made; nothing was stored."""


@dataclass
class _File:
    name: str
    media_type: str
    content: bytes


def _request(base_url: str) -> WSGIRequest:
    """A request for the API's builders, so that the documents' links point at ``base_url``."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ReleaseError(_("The base URL %(url)s is not an http(s) address; no release was made.")
                           % {"url": base_url})
    allowed = settings.ALLOWED_HOSTS or ([".localhost", "127.0.0.1", "[::1]"] if settings.DEBUG else [])
    if not validate_host(parts.hostname, allowed):
        raise ReleaseError(_("The base URL's host %(host)s is not one the archive answers to (ALLOWED_HOSTS); no "
                             "release was made.") % {"host": parts.hostname})
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return WSGIRequest({
        "REQUEST_METHOD": "GET", "PATH_INFO": "/", "SERVER_NAME": parts.hostname, "SERVER_PORT": str(port),
        "HTTP_HOST": parts.netloc, "wsgi.url_scheme": parts.scheme, "wsgi.input": io.BytesIO(),
    })


def _published_versions(using: str) -> dict[str, dict[str, int]]:
    return {
        model._meta.label_lower: {
            str(pk): version
            for pk, version in model._default_manager.using(using).filter(status=Status.APPROVED)
            .order_by("pk").values_list("pk", "version")
        }
        for model in CURATED_MODELS
    }


# What each kind's label (`__str__`) reads of other records, joined in the changelog's one read.
_LABEL_JOINS: dict[type[models.Model], tuple[str, ...]] = {
    Citation: ("passage__source",),
    Participation: ("person", "unit", "event"),
    Post: ("person", "unit"),
    Statement: ("person", "event", "location", "post__person", "post__unit", "participation__person",
                "participation__unit", "participation__event"),
}


def _changelog(previous: Release | None, published: dict[str, dict[str, int]], using: str) -> list[dict[str, Any]]:
    """What changed since ``previous``: records newly published, and the revisions approved since."""
    entries: list[dict[str, Any]] = []
    before = previous.published if previous is not None else {}
    for model in CURATED_MODELS:
        label = model._meta.label_lower
        known = before.get(label, {})
        # Every published record is read once, in chunks, with what its label names joined: no list of
        # ids in a statement (a million passages' citations pass any engine's limit of parameters) and
        # no query per record.
        rows = (model._default_manager.using(using).filter(status=Status.APPROVED)
                .select_related(*_LABEL_JOINS.get(model, ())).order_by("pk"))
        for record in rows.iterator(chunk_size=2000):
            if str(record.pk) in known or str(record.pk) not in published[label]:
                continue
            entries.append({"change": "added", "record": label, "label": str(record), "slug": record.slug,
                            "reason": record.review_note,
                            "at": record.reviewed_at.isoformat() if record.reviewed_at else None})
    revisions = Revision.objects.using(using).filter(state=RevisionState.APPROVED).select_related("record_type")
    if previous is not None:
        revisions = revisions.filter(reviewed_at__gt=previous.made_at)
    for revision in revisions.order_by("reviewed_at", "pk"):
        entries.append({
            "change": _CHANGE_OF_KIND.get(revision.kind, revision.kind),
            "record": f"{revision.record_type.app_label}.{revision.record_type.model}",
            "label": revision.record_label, "revision": revision.pk, "reason": revision.review_note,
            "at": revision.reviewed_at.isoformat() if revision.reviewed_at else None,
        })
    entries.sort(key=lambda entry: (entry["at"] or "", entry["record"], entry["label"]))
    return entries


def _contributors(published: dict[str, dict[str, int]], using: str) -> list[dict[str, str]]:
    """The accounts that made, changed or reviewed a published record or an approved revision."""
    ids: set[int] = set()
    for model in CURATED_MODELS:
        rows = model._default_manager.using(using).filter(status=Status.APPROVED).order_by()
        for row in rows.values_list("pk", "created_by", "modified_by", "reviewed_by").iterator(chunk_size=5000):
            if str(row[0]) in published[model._meta.label_lower]:
                ids.update(value for value in row[1:] if value is not None)
    approved = Revision.objects.using(using).filter(state=RevisionState.APPROVED)
    ids.update(value for row in approved.values_list("created_by", "reviewed_by") for value in row if value)
    ids.update(value for value in approved.values_list("contributors", flat=True) if value)
    people = []
    for account in get_user_model()._default_manager.using(using).filter(pk__in=ids).order_by("username"):
        people.append({"username": account.get_username(), "given": account.first_name, "family": account.last_name})
    return people


def _zip(directory: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(p for p in directory.rglob("*") if p.is_file()):
            info = zipfile.ZipInfo(str(path.relative_to(directory)), date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return buffer.getvalue()


def _json(document: Any) -> bytes:
    return (json.dumps(document, ensure_ascii=False, indent=1, sort_keys=True) + "\n").encode("utf-8")


def _changelog_text(number: int, made_at: str, entries: list[dict[str, Any]]) -> str:
    lines = [f"# Release {number} ({made_at})", ""]
    if not entries:
        lines.append("No record was added or changed since the release before.")
    for entry in entries:
        reason = f": {entry['reason']}" if entry.get("reason") else ""
        lines.append(f"- {entry['change']} {entry['record'].split('.')[-1]} “{entry['label']}”{reason}")
    return "\n".join(lines) + "\n"


def _yaml_string(value: str) -> str:
    return json.dumps(value, ensure_ascii=False)  # a JSON string is a YAML string


def _citation_cff(number: int, made_at: str, base_url: str, people: list[dict[str, str]], title: str) -> str:
    lines = [
        "cff-version: 1.2.0",
        'message: "If you use this release of the archive, please cite it as below."',
        "type: dataset",
        f"title: {_yaml_string(title)}",
        f"version: {_yaml_string(str(number))}",
        f"date-released: {made_at[:10]}",
        f"url: {_yaml_string(base_url.rstrip('/') + f'/api/v1/releases/{number}/')}",
        "authors:",
    ]
    if not people:
        lines.append("  - name: " + _yaml_string(title))
    for person in people:
        if person["family"]:
            lines.append(f"  - family-names: {_yaml_string(person['family'])}")
            if person["given"]:
                lines.append(f"    given-names: {_yaml_string(person['given'])}")
        else:
            lines.append(f"  - name: {_yaml_string(person['given'] or person['username'])}")
    return "\n".join(lines) + "\n"


def _format_files(request: WSGIRequest, using: str) -> list[_File]:
    sources = list(selectors.sources().using(using).filter(status=Status.APPROVED).order_by("slug"))
    files = [_File("sources.csl.json", "application/vnd.citationstyles.csl+json",
                   _json([formats.csl_item(source, request) for source in sources]))]
    locations = Location.objects.using(using).filter(status=Status.APPROVED).select_related("parent").prefetch_related(
        "aliases").order_by("slug")
    files.append(_File("locations.geojson", "application/geo+json",
                       _json(formats.geojson_collection([formats.geojson_feature(x, request) for x in locations]))))
    for source in Source.objects.using(using).filter(status=Status.APPROVED).exclude(text="").order_by("slug"):
        files.append(_File(f"tei/{source.slug}.xml", "application/tei+xml", tei.document(source, request)))
    return files


def _store(release: Release, files: list[_File], using: str) -> Release:
    release.save(using=using)
    ReleaseFile.objects.using(using).bulk_create([
        ReleaseFile(release=release, name=f.name, media_type=f.media_type, content=f.content, size=len(f.content),
                    sha256=hashlib.sha256(f.content).hexdigest())
        for f in files
    ])
    return release


def make_release(*, by: str, base_url: str, note: str = "", title: str = "Archive of the retreat from Nanjing",
                 using: str = "default") -> Release:
    """Make the next release from what is published now, in one transaction; ``by`` names who made it."""
    request = _request(base_url)
    try:
        with transaction.atomic(using=using):
            previous = Release.objects.using(using).order_by("-number").first()
            number = previous.number + 1 if previous is not None else 1
            made_at = timezone.now()
            published = _published_versions(using)
            changelog = _changelog(previous, published, using)
            people = _contributors(published, using)
            with tempfile.TemporaryDirectory(prefix="release-") as tmp:
                write_published(Path(tmp) / "collection", using=using)
                files = [_File("collection.zip", "application/zip", _zip(Path(tmp) / "collection"))]
            files += _format_files(request, using)
            stamp = made_at.isoformat()
            files.append(_File("CHANGELOG.md", "text/markdown", _changelog_text(number, stamp, changelog).encode()))
            files.append(_File("CITATION.cff", "application/x-yaml",
                               _citation_cff(number, stamp, base_url, people, title).encode()))
            sums = "".join(f"{hashlib.sha256(f.content).hexdigest()}  {f.name}\n" for f in files)
            files.append(_File("SHA256SUMS", "text/plain", sums.encode()))
            release = _store(Release(number=number, made_at=made_at, made_by=by, note=note, changelog=changelog,
                                     published=published, contributors=people), files, using)
    except IntegrityError as exc:
        raise ReleaseError(_("Another release was made at the same moment (%(error)s); nothing was stored, "
                             "try again.") % {"error": exc}) from exc
    return release


def verify(release: Release) -> list[str]:
    """The names of the release's files whose content no longer matches their checksum."""
    return [f.name for f in release.files.all() if hashlib.sha256(bytes(f.content)).hexdigest() != f.sha256]
