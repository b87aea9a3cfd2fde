"""App configuration of the archive."""

from django.apps import AppConfig
from django.core.signals import request_finished, request_started
from django.utils.translation import gettext_lazy as _


class ArchiveConfig(AppConfig):
    name = "archive"
    verbose_name = _("Archive")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from archive import checks, data_version, fiction  # noqa: F401 (checks registers on import)
        from archive.api import stored
        from archive.freshness import signals as freshness
        from archive.models.text import refuse_nul
        from archive.search import stored_keys

        refuse_nul(self.get_models())
        fiction.connect()
        data_version.connect()
        freshness.connect()
        stored_keys.connect()
        # The API's stored documents follow each committed write (`archive.api.stored`).
        freshness.documents_changed.connect(stored.on_documents_changed, dispatch_uid="archive.api.stored")
        request_started.connect(stored.on_request_started, dispatch_uid="archive.api.stored.started")
        request_finished.connect(stored.on_request_finished, dispatch_uid="archive.api.stored.finished")
