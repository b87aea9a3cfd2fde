"""The data model, one module per area."""

from .audit import CuratorNote, NoteModel
from .batches import Batch, BatchKind
from .citations import TARGET_FIELDS, Citation, Rank
from .curation import Curated, Side, Status
from .discussion import Comment, CommentKind
from .document_versions import DocumentVersion
from .events import Event, EventKind, Participation, ParticipationRole
from .name_keys import StoredNameKeys
from .people import NameKind, Person, PersonName, Script
from .places import Location, LocationAlias, LocationKind
from .redirects import RedirectModel, SlugRedirect
from .releases import Release, ReleaseFile
from .revisions import Revision, RevisionKind, RevisionState
from .sources import FICTION_KINDS, Language, Passage, PassageRole, Source, SourceKind
from .statements import Basis, Statement, StatementField
from .stored_documents import StoredDocument
from .units import Echelon, Post, Unit, UnitAlias

__all__ = [
    "FICTION_KINDS",
    "TARGET_FIELDS",
    "Basis",
    "Batch",
    "BatchKind",
    "Citation",
    "Comment",
    "CommentKind",
    "Curated",
    "CuratorNote",
    "DocumentVersion",
    "Echelon",
    "Event",
    "EventKind",
    "Language",
    "Location",
    "LocationAlias",
    "LocationKind",
    "NameKind",
    "NoteModel",
    "Participation",
    "ParticipationRole",
    "Passage",
    "PassageRole",
    "Person",
    "PersonName",
    "Post",
    "Rank",
    "RedirectModel",
    "Release",
    "ReleaseFile",
    "Revision",
    "RevisionKind",
    "RevisionState",
    "Script",
    "Side",
    "SlugRedirect",
    "Source",
    "SourceKind",
    "Statement",
    "StatementField",
    "Status",
    "StoredDocument",
    "StoredNameKeys",
    "Unit",
    "UnitAlias",
]
from .search_index import PassageSearchEntry as PassageSearchEntry
