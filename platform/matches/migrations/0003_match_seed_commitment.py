"""Every match commits to its secret seed: a salt and the SHA-256 commitment.

Matches created before this have a salt and commitment made now; their seed was already
public, so the commitment only keeps the shape uniform.
"""

import hashlib
import secrets

from django.db import migrations, models


def commit_existing(apps, schema_editor):
    Match = apps.get_model("matches", "Match")
    for match in Match.objects.filter(seed_commitment="").only("pk", "seed").iterator():
        salt = secrets.token_hex(32)
        commitment = hashlib.sha256(bytes.fromhex(salt) + str(match.seed).encode("ascii")).hexdigest()
        Match.objects.filter(pk=match.pk).update(seed_salt=salt, seed_commitment=commitment)


class Migration(migrations.Migration):

    dependencies = [
        ("matches", "0002_match_kind"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="seed_salt",
            field=models.CharField(blank=True, help_text="32 random bytes in hex; secret until the match is over "
                                   "(matches/fairness.py)", max_length=64),
        ),
        migrations.AddField(
            model_name="match",
            name="seed_commitment",
            field=models.CharField(blank=True, help_text="hex(sha256(salt bytes + seed in decimal ASCII)); public "
                                   "from creation", max_length=64),
        ),
        migrations.AlterField(
            model_name="match",
            name="seed",
            field=models.BigIntegerField(help_text="The match seed; each game's seed is derived from it and the game "
                                         "number. Secret until the match is over"),
        ),
        migrations.RunPython(commit_existing, migrations.RunPython.noop),
    ]
