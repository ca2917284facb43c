# One image for the web, worker and beat services of docker-compose.yml.
FROM python:3.11-slim

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

RUN useradd --create-home --uid 1000 app

COPY . /app
# Editable, so that BASE_DIR (the checkout) holds templates/ and static/ as in development.
RUN pip install -e . \
    && DJANGO_DEBUG=0 SECRET_KEY=collectstatic-only ALLOWED_HOSTS=localhost \
       python manage.py collectstatic --noinput \
    && mkdir -p /app/var \
    && chown -R app:app /app/var

USER app
EXPOSE 8000

CMD ["uvicorn", "config.asgi:application", "--host", "0.0.0.0", "--port", "8000", "--lifespan", "off", "--proxy-headers"]
