"""App configuration of the archive."""

from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ArchiveConfig(AppConfig):
    name = "archive"
    verbose_name = _("Archive")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from archive import checks, data_version, fiction  # noqa: F401 (checks registers on import)
        from archive.freshness import signals as freshness
        from archive.search import stored_keys

        fiction.connect()
        data_version.connect()
        freshness.connect()
        stored_keys.connect()
