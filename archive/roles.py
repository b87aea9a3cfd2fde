"""The two roles of the archive and what each may do.

One place for the rule, used by the data migrations that create the groups
and by the demo-account command. Both roles see every record and its history
(the history view needs only the view permission); only reviewers hold the
`review_*` permissions that `archive.curation` checks. Nobody but a superuser
deletes a curated record in the admin: a duplicate disappears only by a merge,
which leaves a redirect and a reviewed survivor.
"""

from __future__ import annotations

from typing import Any

from archive.models import registry

CURATED_MODELS = tuple(str(model._meta.model_name) for model in registry.CURATED_MODELS)
CHILD_MODELS = ("passage", "personname", "unitalias", "locationalias")
# Written only by `archive.merging`; both roles read them.
READ_ONLY_MODELS = ("slugredirect",)


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
