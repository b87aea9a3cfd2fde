"""The search keys of each name, kept so that a new process need not compute them again.

Computing a name's keys (folding, Traditional -> Simplified, pinyin) is the
slow part of building the search's snapshot: seconds for the ~80,000 names
of an archive of a million passages. The keys are a function of the name and
of the code and tables that fold it, nothing else, so a row is addressed by
a digest of both (`archive.search.stored_keys`): a new name or new folding
code finds no row and computes its keys again; a row can never be stale.
"""

from __future__ import annotations

from django.db import models


class StoredNameKeys(models.Model):
    # sha256 of the folding version and the name: names may be longer than an index allows.
    digest = models.CharField(max_length=64, primary_key=True)
    version = models.CharField(max_length=64, db_index=True)
    name = models.TextField()
    # The fields of `archive.search.keys.NameKeys`, as text: quicker to read back than JSON.
    key = models.TextField()
    latin = models.TextField(null=True)
    syllables = models.TextField()  # separated by spaces
    han_positions = models.TextField()  # separated by commas

    def __str__(self) -> str:
        return self.name
