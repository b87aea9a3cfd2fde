"""The two roles of the archive and what each may do.

One place for the rule, used by the migrations that create the groups
and by the demo-account command. Both roles see every record and its history
(the history view needs only the view permission); only reviewers hold the
`review_*` permissions that `archive.curation` checks. Nobody but a superuser
deletes a curated record in the admin: a duplicate disappears only by a merge,
which leaves a redirect and a reviewed survivor.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.management import create_permissions

from archive.models import registry

CURATED_MODELS = tuple(str(model._meta.model_name) for model in registry.CURATED_MODELS)
CHILD_MODELS = ("passage", "personname", "unitalias", "locationalias")
# Written only by `archive.merging`; both roles read them.
READ_ONLY_MODELS = ("slugredirect",)


# What each of the curators' own pages (`archive.admin.curator_urls`) shows, as the permissions
# to view it: drafts and pending changes are shown only to those who may view their models.
_VIEW_ALL = tuple(f"archive.view_{model}" for model in CURATED_MODELS)
_TARGETS = tuple(f"archive.view_{model}" for model in ("person", "unit", "location", "event", "post", "participation"))
_READER = ("archive.view_source", "archive.view_passage", "archive.view_citation")
_CITE = (*_READER, *_TARGETS, "archive.add_citation")
PAGE_PERMISSIONS: dict[str, tuple[str, ...]] = {
    "index": ("archive.view_source",),
    "reader": _READER,
    "cite_all_mentions": _CITE,
    "submit_drafts": _CITE,
    "withdraw_batch": _CITE,
    "cite": _CITE,
    "cite_mention": _CITE,
    "targets": _TARGETS,
    "new_record_defaults": _TARGETS,
    "kind_of_selection": _TARGETS,
    "review": _VIEW_ALL,
    "my_work": _VIEW_ALL,
    "discuss": _VIEW_ALL,
    "accounts": ("archive.view_event", "archive.view_source", "archive.view_citation"),
    "audit": _VIEW_ALL,
}
# Pages that are a reviewer's alone: they also need a permission to review some model.
REVIEWER_PAGES = frozenset({"review"})


def may_open(user: Any, page: str) -> bool:
    """Whether `user` holds what the curators' page `page` shows (unknown pages: nobody)."""
    if page not in PAGE_PERMISSIONS or not user.has_perms(PAGE_PERMISSIONS[page]):
        return False
    if page in REVIEWER_PAGES:
        return any(user.has_perm(f"archive.review_{model}") for model in CURATED_MODELS)
    return True


def role_permissions(role: str) -> list[str]:
    """Codenames of the archive's permissions a role holds."""
    if role == "curator":
        codenames = [f"{action}_{model}" for model in CURATED_MODELS for action in ("add", "change", "view")]
        codenames += [f"{action}_{model}" for model in CHILD_MODELS for action in ("add", "change", "delete", "view")]
        codenames += [f"view_{model}" for model in READ_ONLY_MODELS]
        return codenames
    if role == "reviewer":
        return role_permissions("curator") + [f"review_{model}" for model in CURATED_MODELS]
    raise ValueError(f"unknown role {role!r}")


def ensure_groups(group_model: Any, permission_model: Any) -> None:
    for role in ("curator", "reviewer"):
        group, _created = group_model.objects.get_or_create(name=role)
        wanted = permission_model.objects.filter(content_type__app_label="archive", codename__in=role_permissions(role))
        group.permissions.set(wanted)


def create_groups(apps: Any, schema_editor: Any) -> None:
    """A migration's step: the permissions made now (Django makes them after the last migration), then the groups."""
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    ensure_groups(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_groups(apps: Any, schema_editor: Any) -> None:
    apps.get_model("auth", "Group").objects.filter(name__in=["curator", "reviewer"]).delete()
