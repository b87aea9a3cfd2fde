"""Statements: ranked values of a record's fields, each with its citations."""

import archive.models.curation
import django.db.models.deletion
import django.utils.timezone
import simple_history.models
from django.conf import settings
from django.contrib.auth.management import create_permissions
from django.db import migrations, models

from archive.roles import ensure_groups


def grant_statement_permissions(apps, schema_editor):
    # The review groups gain the statement permissions (see archive.roles).
    for app_config in apps.get_app_configs():
        app_config.models_module = True
        create_permissions(app_config, apps=apps, verbosity=0)
        app_config.models_module = None
    ensure_groups(apps.get_model("auth", "Group"), apps.get_model("auth", "Permission"))


class Migration(migrations.Migration):

    dependencies = [
        ('archive', '0009_citation_folded'),
        ('contenttypes', '0002_remove_content_type_name'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name='HistoricalStatement',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'draft'), ('in_review', 'in review'), ('approved', 'approved'), ('rejected', 'rejected')], db_index=True, default='draft', max_length=16, verbose_name='status')),
                ('reviewed_at', models.DateTimeField(blank=True, null=True, verbose_name='reviewed at')),
                ('review_note', models.TextField(blank=True, verbose_name='review note')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('updated_at', models.DateTimeField(blank=True, editable=False, verbose_name='updated at')),
                ('version', models.PositiveIntegerField(default=1, editable=False, verbose_name='version')),
                ('slug', models.SlugField(max_length=200, verbose_name='slug')),
                ('field', models.CharField(choices=[('date', 'date'), ('location', 'place'), ('role', 'role'), ('title', 'title'), ('date_from', 'from'), ('date_to', 'to'), ('birth', 'birth'), ('death', 'death'), ('coordinates', 'coordinates')], max_length=16, verbose_name='field')),
                ('value', models.CharField(help_text="Canonical form: EDTF for a date, a place's slug, a role, “lat,lon” for coordinates.", max_length=200, verbose_name='value')),
                ('as_written', models.CharField(blank=True, help_text='The words of the source: 12日傍晚5点', max_length=200, verbose_name='as written')),
                ('earliest', models.DateTimeField(blank=True, help_text="Of an event's date: narrowed to the time the text gives.", null=True, verbose_name='earliest')),
                ('latest', models.DateTimeField(blank=True, null=True, verbose_name='latest')),
                ('rank', models.CharField(choices=[('preferred', 'preferred'), ('normal', 'normal'), ('deprecated', 'deprecated')], default='normal', max_length=16, verbose_name='rank')),
                ('note', models.TextField(blank=True, help_text='Why this rank; what the other accounts say.', verbose_name='note')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='order')),
                ('history_id', models.AutoField(primary_key=True, serialize=False)),
                ('history_date', models.DateTimeField(db_index=True)),
                ('history_change_reason', models.CharField(max_length=100, null=True)),
                ('history_type', models.CharField(choices=[('+', 'Created'), ('~', 'Changed'), ('-', 'Deleted')], max_length=1)),
                ('created_by', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('event', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.event', verbose_name='event')),
                ('history_user', models.ForeignKey(null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL)),
                ('location', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.location', verbose_name='location')),
                ('modified_by', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='last changed by')),
                ('participation', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.participation', verbose_name='participation')),
                ('person', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.person', verbose_name='person')),
                ('post', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.post', verbose_name='post')),
                ('reviewed_by', models.ForeignKey(blank=True, db_constraint=False, null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='reviewed by')),
            ],
            options={
                'verbose_name': 'historical statement',
                'verbose_name_plural': 'historical statements',
                'ordering': ('-history_date', '-history_id'),
                'get_latest_by': ('history_date', 'history_id'),
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.CreateModel(
            name='Statement',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('status', models.CharField(choices=[('draft', 'draft'), ('in_review', 'in review'), ('approved', 'approved'), ('rejected', 'rejected')], db_index=True, default='draft', max_length=16, verbose_name='status')),
                ('reviewed_at', models.DateTimeField(blank=True, null=True, verbose_name='reviewed at')),
                ('review_note', models.TextField(blank=True, verbose_name='review note')),
                ('created_at', models.DateTimeField(default=django.utils.timezone.now, editable=False, verbose_name='created at')),
                ('updated_at', models.DateTimeField(auto_now=True, verbose_name='updated at')),
                ('version', models.PositiveIntegerField(default=1, editable=False, verbose_name='version')),
                ('slug', models.SlugField(max_length=200, unique=True, verbose_name='slug')),
                ('field', models.CharField(choices=[('date', 'date'), ('location', 'place'), ('role', 'role'), ('title', 'title'), ('date_from', 'from'), ('date_to', 'to'), ('birth', 'birth'), ('death', 'death'), ('coordinates', 'coordinates')], max_length=16, verbose_name='field')),
                ('value', models.CharField(help_text="Canonical form: EDTF for a date, a place's slug, a role, “lat,lon” for coordinates.", max_length=200, verbose_name='value')),
                ('as_written', models.CharField(blank=True, help_text='The words of the source: 12日傍晚5点', max_length=200, verbose_name='as written')),
                ('earliest', models.DateTimeField(blank=True, help_text="Of an event's date: narrowed to the time the text gives.", null=True, verbose_name='earliest')),
                ('latest', models.DateTimeField(blank=True, null=True, verbose_name='latest')),
                ('rank', models.CharField(choices=[('preferred', 'preferred'), ('normal', 'normal'), ('deprecated', 'deprecated')], default='normal', max_length=16, verbose_name='rank')),
                ('note', models.TextField(blank=True, help_text='Why this rank; what the other accounts say.', verbose_name='note')),
                ('position', models.PositiveSmallIntegerField(default=0, verbose_name='order')),
                ('citations', models.ManyToManyField(blank=True, help_text='Citations of the same record that give this value.', related_name='statements', to='archive.citation', verbose_name='citations')),
                ('created_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='created by')),
                ('event', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='statements', to='archive.event', verbose_name='event')),
                ('location', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='statements', to='archive.location', verbose_name='location')),
                ('modified_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='last changed by')),
                ('participation', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='statements', to='archive.participation', verbose_name='participation')),
                ('person', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='statements', to='archive.person', verbose_name='person')),
                ('post', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='statements', to='archive.post', verbose_name='post')),
                ('reviewed_by', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.SET_NULL, related_name='+', to=settings.AUTH_USER_MODEL, verbose_name='reviewed by')),
            ],
            options={
                'verbose_name': 'statement',
                'verbose_name_plural': 'statements',
                'ordering': ['field', 'position', 'id'],
                'permissions': [('review_statement', 'Can approve or reject statement records')],
            },
            bases=(archive.models.curation.NaturalKeyBySlug, models.Model),
        ),
        migrations.CreateModel(
            name='HistoricalStatement_citations',
            fields=[
                ('id', models.BigIntegerField(auto_created=True, blank=True, db_index=True, verbose_name='ID')),
                ('m2m_history_id', models.AutoField(primary_key=True, serialize=False)),
                ('citation', models.ForeignKey(blank=True, db_constraint=False, db_tablespace='', null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.citation')),
                ('history', models.ForeignKey(db_constraint=False, on_delete=django.db.models.deletion.DO_NOTHING, to='archive.historicalstatement')),
                ('statement', models.ForeignKey(blank=True, db_constraint=False, db_tablespace='', null=True, on_delete=django.db.models.deletion.DO_NOTHING, related_name='+', to='archive.statement')),
            ],
            options={
                'verbose_name': 'HistoricalStatement_citations',
            },
            bases=(simple_history.models.HistoricalChanges, models.Model),
        ),
        migrations.AddIndex(
            model_name='statement',
            index=models.Index(fields=['event', 'field'], name='archive_sta_event_i_35253f_idx'),
        ),
        migrations.AddIndex(
            model_name='statement',
            index=models.Index(fields=['participation', 'field'], name='archive_sta_partici_d53a7f_idx'),
        ),
        migrations.AddIndex(
            model_name='statement',
            index=models.Index(fields=['post', 'field'], name='archive_sta_post_id_05d0d0_idx'),
        ),
        migrations.AddIndex(
            model_name='statement',
            index=models.Index(fields=['person', 'field'], name='archive_sta_person__16042c_idx'),
        ),
        migrations.AddIndex(
            model_name='statement',
            index=models.Index(fields=['location', 'field'], name='archive_sta_locatio_f87bdd_idx'),
        ),
        migrations.AddConstraint(
            model_name='statement',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('event__isnull', False), ('participation__isnull', True), ('post__isnull', True), ('person__isnull', True), ('location__isnull', True)), models.Q(('participation__isnull', False), ('event__isnull', True), ('post__isnull', True), ('person__isnull', True), ('location__isnull', True)), models.Q(('post__isnull', False), ('event__isnull', True), ('participation__isnull', True), ('person__isnull', True), ('location__isnull', True)), models.Q(('person__isnull', False), ('event__isnull', True), ('participation__isnull', True), ('post__isnull', True), ('location__isnull', True)), models.Q(('location__isnull', False), ('event__isnull', True), ('participation__isnull', True), ('post__isnull', True), ('person__isnull', True)), _connector='OR'), name='statement_exactly_one_target'),
        ),
        migrations.AddConstraint(
            model_name='statement',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('event__isnull', False), ('field__in', ['date', 'location'])), models.Q(('field__in', ['role']), ('participation__isnull', False)), models.Q(('field__in', ['title', 'date_from', 'date_to']), ('post__isnull', False)), models.Q(('field__in', ['birth', 'death']), ('person__isnull', False)), models.Q(('field__in', ['coordinates']), ('location__isnull', False)), _connector='OR'), name='statement_field_fits_target'),
        ),
        migrations.AddConstraint(
            model_name='statement',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('earliest__isnull', True), ('latest__isnull', True)), models.Q(('earliest__isnull', False), ('earliest__lte', models.F('latest')), ('latest__isnull', False)), _connector='OR'), name='statement_bounds_ordered'),
        ),
        migrations.RunPython(grant_statement_permissions, migrations.RunPython.noop),
    ]
