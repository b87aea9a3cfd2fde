"""The archive's deploy checks of the stores where the API throttle counts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core import checks

from archive.checks import check_shared_cache


def _file_cache(settings: Any, location: Path) -> None:
    settings.CACHES = {
        **settings.CACHES,
        "default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": str(location)},
    }
    settings.THROTTLE_TABLE = str(location / "throttle.table")  # as settings place it


def test_a_private_writable_cache_directory_passes(settings: Any, tmp_path: Path) -> None:
    _file_cache(settings, tmp_path / "cache")
    assert check_shared_cache() == []
    assert (tmp_path / "cache").stat().st_mode & 0o777 == 0o700


def test_a_cache_that_cannot_be_written_fails_the_deploy_check(settings: Any, tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("not a directory")
    _file_cache(settings, tmp_path / "a-file" / "cache")
    found = check_shared_cache()
    assert [message.id for message in found] == ["archive.E002"]
    assert found[0].level == checks.ERROR
    # A deploy check: `check --deploy` runs it, a plain `check` does not.
    assert check_shared_cache in checks.registry.registry.get_checks(include_deployment_checks=True)
    assert check_shared_cache not in checks.registry.registry.get_checks()


def test_a_throttle_table_that_cannot_be_written_fails_the_deploy_check(settings: Any, tmp_path: Path) -> None:
    _file_cache(settings, tmp_path / "cache")
    (tmp_path / "a-file").write_text("not a directory")
    settings.THROTTLE_TABLE = str(tmp_path / "a-file" / "throttle.table")
    found = check_shared_cache()
    assert [message.id for message in found] == ["archive.E002"]
    assert "THROTTLE_TABLE" in found[0].msg


def test_the_deploy_check_creates_the_throttle_table_private_to_the_archive(settings: Any, tmp_path: Path) -> None:
    _file_cache(settings, tmp_path / "cache")
    assert check_shared_cache() == []
    table = tmp_path / "cache" / "throttle.table"
    assert table.stat().st_mode & 0o777 == 0o600


def test_a_cache_directory_others_may_write_is_warned_about(settings: Any, tmp_path: Path) -> None:
    shared = tmp_path / "cache"
    shared.mkdir()
    shared.chmod(0o777)
    _file_cache(settings, shared)
    assert [message.id for message in check_shared_cache()] == ["archive.W002"]
