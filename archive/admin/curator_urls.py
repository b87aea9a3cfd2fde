"""Routes of the curators' own pages inside the admin (source reader, review queue)."""

urlpatterns: list = []
