from django.contrib.auth.management import create_permissions
from django.db import migrations

from archive.roles import ensure_groups


def create_groups(apps, schema_editor):
    # Permissions are normally created after all migrations; make them now.
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    ensure_groups(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


def remove_groups(apps, schema_editor):
    apps.get_model("auth", "Group").objects.filter(name__in=["curator", "reviewer"]).delete()


class Migration(migrations.Migration):
    dependencies = [("archive", "0002_triggers"), ("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunPython(create_groups, remove_groups)]
