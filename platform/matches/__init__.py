"""Matches: challenges played by bots on Celery workers, live status, replays and the viewer."""
