"""``manage.py meta_tick``: fold every result recorded since the last tick into the
metagame's aggregates now (what beat's ``meta.tick`` does periodically)."""

from django.core.management.base import BaseCommand

from meta.services import meta_tick


class Command(BaseCommand):
    help = "Count the ladder, tournament and lab results recorded since the last tick in the metagame figures."

    def handle(self, *args, **options):
        report = meta_tick()
        self.stdout.write(f"counted {report.counted or 'nothing'}; deferred {report.deferred or 'nothing'}")
