"""The Django project: settings, URL routes, the ASGI/WSGI entry points and the Celery app.

Importing the package loads the Celery app so that ``@shared_task`` functions in every
Django app bind to it, in the web process as well as in workers.
"""

from config.celery import app as celery_app

__all__ = ["celery_app"]
