from django.db import migrations

from archive.db import triggers


class Migration(migrations.Migration):
    dependencies = [("archive", "0001_initial")]

    operations = [migrations.RunPython(triggers.create, triggers.drop)]
