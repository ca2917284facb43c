"""The site itself: home page, health endpoint, site heartbeat and demo data."""
