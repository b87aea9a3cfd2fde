"""Name keys read from the database instead of computed: what lets a new process build its snapshot fast.

Computing the keys of every name (folding and pinyin, `keys.compute_name_keys`)
is most of the time a new process spends on its first search. `keys_of`
answers each name from this process's memory, else from the stored rows
(`archive.models.StoredNameKeys`), else computes them. A read never writes:
the keys are stored when a name is saved through the ORM (`connect`), and
for every name by `store_all` (`rebuild_search_index`, after a bulk load
that sent no signals). A name missing from the store costs only its
computing, as before.

A row is read by the folding's version and the name (its primary key is a
digest of both, since names may be longer than an index allows), and the
version is a digest of the code that folds (this package's `keys`,
`archive.text.normalize`) and of the tables it reads (OpenCC, pypinyin, the
Unicode database). A row therefore holds exactly what computing would give:
new folding code addresses other rows, and the old ones are removed by the
next store. Which records exist and what they are named is still read from
the database by every build, so no write can make a stored key wrong.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from django.db import router, transaction
from django.db.models import Model
from django.db.models.signals import post_save

from archive.models import StoredNameKeys
from archive.text import normalize

from . import keys
from .records import KINDS

# Digests per lookup: well below every engine's limit of parameters per statement.
BATCH_SIZE = 2000
# Once a process remembers keys, fewer new names than this (a write's) are computed, at ~0.1 ms
# each, rather than read with every stored row.
READ_STORED_FROM = 1000


def _source(module: ModuleType) -> bytes:
    return Path(module.__file__ or "").read_bytes()


def _distribution(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


@functools.cache
def version() -> str:
    """A digest of everything a name's keys depend on besides the name."""
    parts = [_source(keys), _source(normalize), _distribution("OpenCC").encode(),
             _distribution("pypinyin").encode(), unicodedata.unidata_version.encode()]
    return hashlib.sha256(b"\0".join(parts)).hexdigest()[:32]


def digest(name: str) -> str:
    return hashlib.sha256(f"{version()}\0{name}".encode()).hexdigest()


_FIELDS = ("name", "key", "latin", "syllables", "han_positions")


def _decode(row: tuple[str, str, str | None, str, str]) -> keys.NameKeys:
    _name, key, latin, syllables, han_positions = row
    return keys.NameKeys(key, latin, tuple(syllables.split(" ")) if syllables else (),
                         tuple(map(int, han_positions.split(","))) if han_positions else ())


def _row(name: str, found: keys.NameKeys) -> StoredNameKeys | None:
    """The row of a name, or None for keys that would not read back the same (none known: a safeguard)."""
    row = StoredNameKeys(digest=digest(name), version=version(), name=name, key=found.key, latin=found.latin,
                         syllables=" ".join(found.syllables), han_positions=",".join(map(str, found.han_positions)))
    return row if _decode((name, row.key, row.latin, row.syllables, row.han_positions)) == found else None


def _rows(names: Iterable[str]) -> list[StoredNameKeys]:
    return [row for name in names if (row := _row(name, keys.name_keys(name))) is not None]


def _load(using: str) -> dict[str, keys.NameKeys]:
    """Every stored name of the current version, in one query: quicker than looking up tens of thousands."""
    rows = StoredNameKeys.objects.using(using).filter(version=version()).values_list(*_FIELDS)
    return {row[0]: _decode(row) for row in rows}


def _missing(names: Iterable[str], alias: str) -> dict[str, str]:
    wanted = {digest(name): name for name in dict.fromkeys(names) if name}
    digests = list(wanted)
    for start in range(0, len(digests), BATCH_SIZE):
        present = StoredNameKeys.objects.using(alias).filter(digest__in=digests[start : start + BATCH_SIZE])
        for found in present.values_list("digest", flat=True):
            del wanted[found]
    return wanted


def store(names: Iterable[str], using: str | None = None) -> int:
    """Store the keys of those of `names` not stored yet, and remove the rows of other folding versions.

    Returns the number of names stored.
    """
    alias = using or router.db_for_write(StoredNameKeys)
    missing = _missing(names, alias)
    with transaction.atomic(using=alias):
        StoredNameKeys.objects.using(alias).exclude(version=version()).delete()
        rows = _rows(missing.values())
        StoredNameKeys.objects.using(alias).bulk_create(rows, batch_size=BATCH_SIZE, ignore_conflicts=True)
    return len(rows)


def store_all(using: str | None = None) -> int:
    """Store the keys of every name and alias of every record (after a bulk load that sent no signals)."""
    alias = using or router.db_for_write(StoredNameKeys)
    names: list[str] = []
    for kind in KINDS.values():
        names.extend(kind.model._default_manager.using(alias).values_list(kind.title_field, flat=True))
        if kind.alias_model is not None:
            names.extend(kind.alias_model._default_manager.using(alias).values_list("name", flat=True))
    return store(names, alias)


def _saved(sender: type[Model], instance: Model, raw: bool = False, using: str | None = None,
           **kwargs: object) -> None:
    name = getattr(instance, _NAMED[sender])
    if name:  # one statement in the writer's transaction; a name stored already is left as it is
        rows = _rows([name])
        StoredNameKeys.objects.using(using).bulk_create(rows, ignore_conflicts=True)


# The field holding the name, of every model whose rows the snapshot reads names from.
_NAMED: dict[type[Model], str] = {}


def connect() -> None:
    """Store the keys of every name saved through the ORM: one more statement in the writer's transaction."""
    for kind in KINDS.values():
        _NAMED[kind.model] = kind.title_field
        if kind.alias_model is not None:
            _NAMED[kind.alias_model] = "name"
    for model in _NAMED:
        post_save.connect(_saved, sender=model, dispatch_uid=f"archive.search.stored_keys.{model._meta.label_lower}")


def keys_of(names: Iterable[str], using: str) -> dict[str, keys.NameKeys]:
    """The keys of each name: from memory, else from the rows stored on `using`, else computed.

    A new process reads every stored row once. Later a few names missing
    from memory (after a write) are computed, which is quicker than reading
    the stored ones. A read does not write: names are stored when they are
    saved, or by `store_all`.
    """
    found: dict[str, keys.NameKeys] = {}
    missing: list[str] = []
    for name in dict.fromkeys(names):
        known = keys.remembered(name)
        if known is not None:
            found[name] = known
        else:
            missing.append(name)
    if missing and (len(missing) >= READ_STORED_FROM or not keys.remembering()):
        loaded = _load(using)
        keys.remember(loaded)  # every kind's names: the next kinds built find theirs in memory
        found.update((name, loaded[name]) for name in missing if name in loaded)
    computed = {name: keys.compute_name_keys(name) for name in missing if name not in found}
    keys.remember(computed)
    return found | computed
