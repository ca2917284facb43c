"""Queue entries of finished matches are released.

Before this, the entry of a paired player outlived its match, and the lobby kept sending
the player back to the finished match. Existing such rows are deleted here; from now on
readers ignore them and ``live_queue_release`` deletes them.
"""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


def release_finished_entries(apps, schema_editor):
    QueueEntry = apps.get_model("live", "QueueEntry")
    QueueEntry.objects.filter(match__isnull=False).exclude(match__live__status="active").delete()


class Migration(migrations.Migration):

    dependencies = [
        ('decks', '0002_deck_ladder'),
        ('live', '0001_initial'),
        ('matches', '0003_match_seed_commitment'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.RunPython(release_finished_entries, migrations.RunPython.noop),
        migrations.AlterField(
            model_name='queueentry',
            name='match',
            field=models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='matches.match'),
        ),
        migrations.AddIndex(
            model_name='livechallenge',
            index=models.Index(fields=['challenged', 'status', 'expires'], name='livechallenge_waiting'),
        ),
    ]
