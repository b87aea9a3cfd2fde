"""API documents kept as JSON text, each under the versions of the tags it was built from.

The read model of the API (`archive.api.stored`): a record's document is built
once by the serializers and read back as text, so that a page of fifty events
costs a few queries and no model instances. A stored document is valid while
its tag (`archive.models.document_versions`: `event:<slug>`, `passage:<id>` …)
and `*` are still at the versions it was built under; every write bumps the
tags of the documents that show it in the writer's transaction, so a document
is never read after the data it shows changed, whichever path wrote the data.
"""

from __future__ import annotations

from django.db import models

from .document_versions import MAX_TAG_LENGTH


class StoredDocument(models.Model):
    tag = models.CharField(max_length=MAX_TAG_LENGTH)
    # The fiction mode of the nested data ("exclude" or "include"), or "-" for a document without any.
    variant = models.CharField(max_length=16)
    tag_version = models.BigIntegerField()
    everything_version = models.BigIntegerField()
    body = models.TextField()
    # What a detail needs besides its body, so that a current document answers without reading its record:
    # the record's Last-Modified (a Unix time) and whether it is fiction (its default reading).
    last_modified = models.BigIntegerField(null=True)
    fictional = models.BooleanField(default=False)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["tag", "variant"], name="stored_document_unique_tag_variant")]

    def __str__(self) -> str:
        return f"{self.tag} ({self.variant})@{self.tag_version}"
