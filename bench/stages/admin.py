"""The admin: render times of the passage and citation changelists against Django's stock ModelAdmin.

Both are served in this process through django.test.Client, the stock
admins on a second admin site with the same `search_fields`, so `?q=`
searches on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bench.figures import Figure, Run
from bench.measuring import captured_queries, client_get, timed

ADMIN_USER = "bench-admin"
ADMIN_QUERY = "江"
STOCK_ADMIN = "bench-stock-admin"  # URL prefix and name of the stock admin site


def _admin_client() -> Any:
    """A test client logged in as a superuser, created if missing (with no usable password)."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    user_model = get_user_model()
    user = user_model.objects.filter(username=ADMIN_USER).first()
    if user is None:
        user = user_model.objects.create_superuser(ADMIN_USER, "bench@example.invalid", None)
    client = Client()
    # force_login skips authentication, so django-axes has no login to throttle.
    client.force_login(user)
    return client


def _stock_urlconf(models: list[type]) -> Any:
    """The project's routes plus a second admin site on which `models` have Django's stock ModelAdmin.

    The stock admins keep only the project's `search_fields` (Django's own
    icontains search over them), so that `?q=` searches on both sides;
    everything else (list_display, ordering, paginator, full counts) is Django's
    default. Served through the same client and middleware as the real admin.
    """
    import types

    from django.contrib import admin
    from django.urls import path

    import config.urls

    site = admin.AdminSite(name=STOCK_ADMIN)
    for model in models:
        fields = admin.site.get_model_admin(model).search_fields
        site.register(model, type(f"Stock{model.__name__}Admin", (admin.ModelAdmin,), {"search_fields": fields}))
    # A urlconf is any hashable object with `urlpatterns`; a module object needs no file.
    urlconf = types.ModuleType("bench_stock_admin_urls")
    urlconf.urlpatterns = [path(f"{STOCK_ADMIN}/", site.urls), *config.urls.urlpatterns]  # type: ignore[attr-defined]
    return urlconf


@dataclass
class Rendered:
    """Warm render times of one changelist (as a LoadResult), its SQL queries and rows shown."""

    times: Any  # bench.load.LoadResult, imported late like the other figures do
    queries: int
    rows: int


def _render(client: Any, path: str, repeat: int) -> Rendered:
    from bench import load

    client_get(client, path)  # warm: templates, content types, the database's cache
    # Queries are counted on a render of their own, so that capturing them costs no timed render.
    with captured_queries() as captured:
        response = client_get(client, path)
    times = load.LoadResult()
    for _ in range(repeat):
        times.latencies.append(timed(lambda: client_get(client, path)))
    return Rendered(times, len(captured), len(response.context_data["cl"].result_list))


def admin_figures(run: Run) -> None:
    """Our changelists of passages and citations against Django's stock ModelAdmin of the same models."""
    from django.test import override_settings

    from archive.models import Citation, Passage

    client = _admin_client()
    repeat = run.args.admin_repeat
    models = [Passage, Citation]
    with override_settings(ROOT_URLCONF=_stock_urlconf(models)):
        for model in models:
            for query in ("", f"?q={ADMIN_QUERY}"):
                page = f"archive/{model._meta.model_name}/{query}"
                ours = _render(client, f"/admin/{page}", repeat)
                stock = _render(client, f"/{STOCK_ADMIN}/{page}", repeat)
                title = f"admin {model._meta.model_name} changelist{' ' + query if query else ''}"
                notes = (
                    f"{ours.queries} SQL queries for a page of {ours.rows} rows (stock: {stock.queries} for "
                    f"{stock.rows} rows); {repeat} warm renders each through django.test.Client in-process, as a "
                    "superuser (p95 by nearest rank); baseline: Django's stock ModelAdmin with only the same "
                    "search_fields (icontains), on a second admin site in the same process"
                )
                baseline = "Django's stock admin.ModelAdmin changelist of the same model (same search_fields)"
                for label, ms, base_ms in (
                    ("p50", ours.times.p50, stock.times.p50),
                    ("p95", ours.times.p95, stock.times.p95),
                ):
                    run.add(
                        Figure(
                            f"{title}: {label} latency",
                            ms,
                            "ms",
                            baseline,
                            base_ms,
                            "lower",
                            target="< 300 ms",
                            met=ms < 300,
                            notes=notes if label == "p50" else "",
                        )
                    )
