"""Django settings, read from the environment.

With no environment at all the project runs on one machine with nothing installed:
SQLite in ``var/``, a Celery broker on kombu's filesystem transport in ``var/broker/``,
the in-memory channel layer and the local-memory cache, DEBUG on.

- ``DATABASE_URL`` (for example ``postgres://user:pass@host:5432/name``) switches to
  PostgreSQL through psycopg 3.
- ``REDIS_URL`` (for example ``redis://host:6379/0``) makes Redis the Celery broker, the
  Channels layer and the cache, every key and channel named under ``SITE_PREFIX``.
- ``DJANGO_DEBUG=0`` is production mode: ``SECRET_KEY`` and ``ALLOWED_HOSTS`` must then be
  set, and the security settings default to what ``manage.py check --deploy`` asks for.

Every variable read here is listed in README.md and, where it applies to the containers,
in docker-compose.yml; ``tests/platform/test_compose.py`` keeps the three in step.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

from web.inputs import parse_whole_number

BASE_DIR = Path(__file__).resolve().parents[2]
env = environ.Env()

# Local state of every process (SQLite, the embedded broker, beat's schedule): created here,
# whichever process starts first, so that a fresh clone runs with any set of variables.
VAR_DIR = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var")))
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env.bool("DJANGO_DEBUG", default=True)

# --------------------------------------------------------------------------- production guard

if not DEBUG:
    _missing = [name for name in ("SECRET_KEY", "ALLOWED_HOSTS") if not env.str(name, default="").strip()]
    if _missing:
        raise ImproperlyConfigured(
            "DJANGO_DEBUG=0 (production mode) needs "
            + " and ".join(_missing)
            + " set in the environment: SECRET_KEY a long random string, "
            "ALLOWED_HOSTS a comma-separated list of the host names this site answers to."
        )

SECRET_KEY = env.str("SECRET_KEY", default="django-insecure-development-key-never-used-with-DJANGO_DEBUG-0")
ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# --------------------------------------------------------------------------- applications

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI and Redoc served from our own static files
    "channels",
    "web",
    "rest_framework.authtoken",
    "accounts",
    "decks",
    "matches",
    "ladder",
    "live",
    "tournaments",
    "guide",
    "lab",
    "meta",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "web.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "web.middleware.RefuseNulMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "web.middleware.SiteNotFoundMiddleware",
]
# DEBUG still answers a missing page with the site's 404 page; DJANGO_DEBUG_404=1 shows Django's URL list instead.
DEBUG_TECHNICAL_404 = env.bool("DJANGO_DEBUG_404", default=False)

ROOT_URLCONF = "config.urls"
ASGI_APPLICATION = "config.asgi.application"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "OPTIONS": {
            # Django's two loaders, then each registered game's site/templates/ (web/game_files.py).
            "loaders": [("django.template.loaders.cached.Loader", [
                "django.template.loaders.filesystem.Loader",
                "django.template.loaders.app_directories.Loader",
                "web.game_files.GameTemplateLoader",
            ])],
            # {{ name|player }} on every page: a bot's name marked as a bot (docs/bots-api.md).
            "builtins": ["accounts.templatetags.players"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "web.context_processors.site_navigation",
                "live.context_processors.live_notice",
                "live.notify.live_matches_waiting",
            ],
        },
    },
]

# --------------------------------------------------------------------------- database


def _sqlite_options() -> dict:
    """SQLite tuned for a web process and workers writing the same file.

    WAL lets readers proceed while one process writes; IMMEDIATE transactions take the
    write lock up front so that concurrent writers wait (``timeout``) instead of failing
    with "database is locked" halfway through a transaction.
    """
    return {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }


if env.str("DATABASE_URL", default=""):
    DATABASES = {"default": env.db("DATABASE_URL")}
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": VAR_DIR / "db.sqlite3"}}

if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    DATABASES["default"].setdefault("OPTIONS", {}).update(_sqlite_options())
else:
    # Under ASGI every request may run on a different thread, so persistent connections
    # are off unless asked for; health checks make a reused connection safe when they are on.
    DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0)
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --------------------------------------------------------------------------- this deployment's namespace

_SITE_PREFIX_CHARS = re.compile(r"[A-Za-z0-9_.-]{1,40}")


def _site_prefix(value: str, database: dict) -> str:
    """This deployment's namespace on a shared Redis server: ``SITE_PREFIX`` when set, else
    the database's name with a short hash of where it lives (``cardplatform-1a2b3c4d``),
    which two deployments never share. Redis pub/sub ignores the database number of
    ``REDIS_URL``, so without it two sites on one server would hear each other's groups."""
    value = value.strip()
    if value:
        if not _SITE_PREFIX_CHARS.fullmatch(value):
            raise ImproperlyConfigured(f"SITE_PREFIX={value!r} must be 1 to 40 letters, digits, '.', '_' or '-'.")
        return value
    where = "|".join(str(database.get(key) or "") for key in ("ENGINE", "HOST", "PORT", "NAME"))
    name = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(str(database.get("NAME") or "site")).stem).strip("-")[:24]
    return f"{name or 'site'}-{hashlib.sha256(where.encode()).hexdigest()[:8]}"


SITE_PREFIX = _site_prefix(env.str("SITE_PREFIX", default=""), DATABASES["default"])

# --------------------------------------------------------------------------- Redis, broker, channels, cache

REDIS_URL = env.str("REDIS_URL", default="")

if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    # A worker serving several queues takes from the first non-empty one in the order
    # they are listed (config/celery.py: QUEUES, highest priority first).
    # Every key and pub/sub channel of Redis is named under SITE_PREFIX: the broker's, the
    # channel layer's and the cache's (tests/platform/test_site_prefix.py).
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {"queue_order_strategy": "priority", "global_keyprefix": f"{SITE_PREFIX}:"}
    CHANNEL_LAYERS = {
        "default": {
            # Redis pub/sub: each process holds one subscribed connection, and messages are
            # pushed to it as they are published, many per read. channels_redis's list-based
            # layer (channels_redis.core) pops one message per Redis round trip, one after
            # another in each process: when a live event's round starts (hundreds of notices,
            # board sockets joining their groups, the first moves' views), notices reached
            # their sockets seconds late (bench/RESULTS.md, "Live Swiss of people").
            # live/redis_layer.py: channels_redis's pub/sub layer with at most "capacity" messages
            # held per socket (the oldest dropped), so a client that stops reading cannot
            # make a web process hold its messages without end.
            "BACKEND": "live.redis_layer.BoundedPubSubChannelLayer",
            # redis-py's default socket timeout (5 s) once killed every idle WebSocket under
            # the list-based layer's 5 s blocking read: the read timeout stays well above
            # both that and the pub/sub reader's health checks (tests/platform/
            # test_redis_sockets.py keeps a socket idle for 35 s).
            "CONFIG": {
                "hosts": [
                    {
                        "address": REDIS_URL,
                        "socket_timeout": 30,
                        "socket_connect_timeout": 5,
                        "socket_keepalive": True,
                        "health_check_interval": 15,
                    }
                ],
                "capacity": 200,
                "prefix": f"{SITE_PREFIX}:",
            },
        }
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": REDIS_URL,
                          "KEY_PREFIX": SITE_PREFIX}}
else:
    BROKER_DIR = VAR_DIR / "broker"
    for _sub in ("queue", "control", "staging", "claimed", "rejected"):
        (BROKER_DIR / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_URL = "filesystem://localhost//"
    # kombu's filesystem transport with atomic writes and claims (web/broker.py): the stock
    # one lets a worker read a message file before it is written, and the worker dies.
    CELERY_BROKER_TRANSPORT = "web.broker:Transport"
    # One folder in and out: web, workers and beat on this machine share it, and every
    # queue lives in it, told apart by the file names.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # The filesystem transport polls its folder; a short interval keeps tasks snappy.
        "polling_interval": 0.25,
    }
    # Crosses processes without a server: a worker's messages reach the web process (live/layers.py).
    CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "live.layers.SQLiteBusChannelLayer",
            "CONFIG": {"path": str(VAR_DIR / "channels.sqlite3"), "prefix": f"{SITE_PREFIX}:"},
        }
    }
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# --------------------------------------------------------------------------- static files

STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# Django's two finders, then each registered game's site/static/ (web/game_files.py).
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "web.game_files.GameStaticFinder",
]
STATIC_ROOT = BASE_DIR / "staticfiles"
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}
# In DEBUG WhiteNoise serves straight from static/ and the apps, so no collectstatic is
# needed while developing; in production it serves the collected, hashed files.
WHITENOISE_USE_FINDERS = DEBUG
WHITENOISE_AUTOREFRESH = DEBUG

# --------------------------------------------------------------------------- API

# Token auth for API clients (``Authorization: Token <key>``), the session for the website's
# own scripts. Token comes first so that an anonymous request is answered 401 with
# ``WWW-Authenticate: Token``. Errors, pagination and body-size limits: config/api.py.
REST_FRAMEWORK = {
    # Adds the error statuses each operation can answer (config/schema.py).
    "DEFAULT_SCHEMA_CLASS": "config.schema.AutoSchema",
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # The first one names the scheme a 401 invites (WWW-Authenticate: Token).
        "rest_framework.authentication.TokenAuthentication",
        # A bot's token (Authorization: Bearer bot_...) acts as the bot alone (docs/bots-api.md).
        "accounts.authentication.BotTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    "DEFAULT_PARSER_CLASSES": ["config.api.JSONParser", "config.api.FormParser", "config.api.MultiPartParser"],
    "DEFAULT_PAGINATION_CLASS": "config.api.Pagination",
    "PAGE_SIZE": 20,
    "EXCEPTION_HANDLER": "config.api.exception_handler",
    # Writes in general; the account views add their own (config/throttling.py).
    "DEFAULT_THROTTLE_CLASSES": ["config.throttling.WriteThrottle"],
}


def _rate(name: str, value: str) -> str | None:
    """A rate like ``10/min`` (``s``, ``min``, ``hour``, ``day``); ``off`` for no limit."""
    value = value.strip()
    if value.lower() in ("off", "none", "0"):
        return None
    number, _, period = value.partition("/")
    if not parse_whole_number(number, max_digits=9) or period[:1] not in ("s", "m", "h", "d"):
        raise ImproperlyConfigured(f"{name}={value!r} is not a rate such as 10/min, 100/hour or off.")
    return value


#: Rates of the rate limits when no variable sets them (see config/throttling.py).
DEFAULT_THROTTLE_RATES = {
    "register": "20/hour",
    "login": "30/min",
    "login_username": "10/min",
    "write": "120/min",
}
_RATE_VARIABLES = {
    "register": ("THROTTLE_REGISTER_RATE", env.str("THROTTLE_REGISTER_RATE", default="")),
    "login": ("THROTTLE_LOGIN_RATE", env.str("THROTTLE_LOGIN_RATE", default="")),
    "login_username": ("THROTTLE_LOGIN_USERNAME_RATE", env.str("THROTTLE_LOGIN_USERNAME_RATE", default="")),
    "write": ("THROTTLE_WRITE_RATE", env.str("THROTTLE_WRITE_RATE", default="")),
}
THROTTLE_RATES = {
    scope: _rate(name, value or DEFAULT_THROTTLE_RATES[scope]) for scope, (name, value) in _RATE_VARIABLES.items()
}
# Largest request body accepted (bytes): decklists and challenges are a few hundred bytes.
DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
# Hours an Idempotency-Key (web/idempotency.py) answers for: an older key is unknown (a new
# create), and beat's hourly web.prune_idempotency_keys deletes it. 0: kept forever.
IDEMPOTENCY_KEY_HOURS = env.float("IDEMPOTENCY_KEY_HOURS", default=24.0)
SPECTACULAR_SETTINGS = {
    # The schema names no game: the games are the registry's (each game field's values).
    "TITLE": "Card game platform API",
    "DESCRIPTION": (
        "Players, decks, cards and matches of the card game platform. "
        "Authenticate with `Authorization: Token <key>` (POST /api/accounts/token/). "
        'Every error is `{"error": {"code", "message", "fields"}}`; lists are paginated '
        "(`?page=`, `?page_size=` up to 100); rate limits answer 429 with `Retry-After`. "
        "The guide to this API: [/docs/api.md](/docs/api.md); limits and how to report a "
        "security problem: [/docs/security.md](/docs/security.md)."
    ),
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # Two "state" fields with different choices: each gets its own named enum.
    "ENUM_NAME_OVERRIDES": {
        "TournamentStateEnum": "tournaments.models.Tournament.State",
        "LiveQueueStateEnum": ["idle", "waiting", "matched"],
        "MatchStatusEnum": "matches.models.Match.Status",
        "LabPilotEnum": "lab.conf.PILOTS",
    },
}

# --------------------------------------------------------------------------- auth, i18n

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --------------------------------------------------------------------------- match playing

# How long a worker's claim on a match holds without renewal (the sweeper re-queues a
# match whose lease expired), when a still-queued match's task is sent again, how many
# starts a match gets before it is failed, the per-decision budget of a bot (0: none),
# and how many challenges one player may have queued or running at once.
MATCHES_LEASE_SECONDS = env.float("MATCHES_LEASE_SECONDS", default=60.0)
MATCHES_RESEND_SECONDS = env.float("MATCHES_RESEND_SECONDS", default=600.0)
MATCHES_MAX_ATTEMPTS = env.int("MATCHES_MAX_ATTEMPTS", default=3)
MATCHES_DECISION_SECONDS = env.float("MATCHES_DECISION_SECONDS", default=30.0)
# The hard limit of one live bot decision (0: none); its move is then a random legal one.
LIVE_BOT_DECISION_SECONDS = env.float("LIVE_BOT_DECISION_SECONDS", default=10.0)
MATCHES_MAX_OPEN_CHALLENGES = env.int("MATCHES_MAX_OPEN_CHALLENGES", default=20)
MATCHES_STREAM_SECONDS = env.float("MATCHES_STREAM_SECONDS", default=0.5)

# --------------------------------------------------------------------------- ladder

# Rated matches before a rating stops being provisional, ladder matches queued or running
# at once (tournaments and challenges keep the rest of the workers), games per ladder match.
# How often beat pairs ladder decks (LADDER_TICK_SECONDS) is read by config/celery.py.
LADDER_PROVISIONAL_GAMES = env.int("LADDER_PROVISIONAL_GAMES", default=10)
LADDER_MAX_IN_FLIGHT = env.int("LADDER_MAX_IN_FLIGHT", default=4)
LADDER_BEST_OF = env.int("LADDER_BEST_OF", default=1)
LADDER_CACHE_SECONDS = env.int("LADDER_CACHE_SECONDS", default=5)

# --------------------------------------------------------------------------- security (production)

SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
if not DEBUG:
    SECURE_SSL_REDIRECT = env.bool("DJANGO_SECURE_SSL_REDIRECT", default=True)
    SESSION_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = env.bool("DJANGO_SECURE_COOKIES", default=True)
    SECURE_HSTS_SECONDS = env.int("DJANGO_SECURE_HSTS_SECONDS", default=31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS", default=True)
    SECURE_HSTS_PRELOAD = env.bool("DJANGO_SECURE_HSTS_PRELOAD", default=True)
    if env.bool("DJANGO_SECURE_PROXY_SSL_HEADER", default=False):
        # Only behind a proxy that sets X-Forwarded-Proto itself and strips the client's.
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --------------------------------------------------------------------------- logging

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
    # Replaces Django's own console handler for these loggers, which would print each line twice.
    "loggers": {"django": {"handlers": ["console"], "level": "INFO", "propagate": False}},
}
