"""Staff accounts of a role for the browser tests, and signing them in through the admin's login page."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group, User

PASSWORD = "browser-pass-1937"


def account(name: str, role: str) -> User:
    made = User.objects.create_user(username=name, password=PASSWORD, is_staff=True)
    made.groups.add(Group.objects.get(name=role))
    return made


def log_in(page: Any, base: str, name: str, next_path: str) -> None:
    page.goto(f"{base}/admin/login/?next={next_path}")
    page.fill("#id_username", name)
    page.fill("#id_password", PASSWORD)
    page.click("input[type=submit]")
    page.wait_for_url(f"{base}{next_path}*")
