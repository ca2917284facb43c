"""``manage.py ladder_rebuild [--check]``: recompute every rating from the recorded results.

Replays every finished match in result order through the same rating code the workers
use. ``--check`` writes nothing and exits 1 if anything stored differs from the
recomputed ratings (it lists the differences); without it the ratings and their
history are replaced by the recomputed ones.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from ladder.services import ratings_rebuild


class Command(BaseCommand):
    help = "Recompute every rating from the recorded match results, in the order they were rated."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--check", action="store_true",
                            help="write nothing; exit 1 if the stored ratings differ from the recomputed ones")

    def handle(self, *args, check: bool = False, **options) -> None:
        report = ratings_rebuild(write=not check)
        self.stdout.write(f"{report.matches} rated matches, {report.ratings} ratings, {report.changes} rating changes")
        if check:
            for line in report.differences[:50]:
                self.stdout.write(f"  {line}")
            if report.differences:
                raise CommandError(f"{len(report.differences)} difference(s) between the stored and the recomputed "
                                   "ratings")
            self.stdout.write(self.style.SUCCESS("the stored ratings are exactly the recomputed ones"))
        else:
            self.stdout.write(self.style.SUCCESS(f"ratings rebuilt ({len(report.differences)} had differed)"))
