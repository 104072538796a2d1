"""Settings shared by every mode; every knob comes from the environment through django-environ."""

from pathlib import Path

import environ
from celery.schedules import crontab

BASE_DIR = Path(__file__).resolve().parent.parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
# A .env file is read when present (docker compose and developers); real environment wins.
environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DJANGO_DEBUG", default=False)
SECRET_KEY = env("DJANGO_SECRET_KEY")
ALLOWED_HOSTS = env.list("DJANGO_ALLOWED_HOSTS", default=[])
CSRF_TRUSTED_ORIGINS = env.list("DJANGO_CSRF_TRUSTED_ORIGINS", default=[])

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
    "drf_spectacular_sidecar",
    "allauth",
    "allauth.account",
    "accounts",
    "campaigns",
    "webhooks",
    "calendars",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "config.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # Pages and API answers (whitenoise serves static files precompressed, before this).
    "django.middleware.gzip.GZipMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # A retried API write with the same Idempotency-Key answers the first result.
    "campaigns.api.idempotency.IdempotencyKeyMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "allauth.account.middleware.AccountMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "campaigns.context_processors.unread_notifications",
            ],
        },
    },
]

# The site's address as players reach it, for links in webhook messages (sent from Celery,
# where no request tells it).
SITE_URL = env("SITE_URL", default="http://localhost:8000")

# --- Database: DATABASE_URL, else a SQLite file under var/ (the embedded default).
VAR_DIR.mkdir(exist_ok=True)
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'db.sqlite3'}")}
DATABASES["default"]["ATOMIC_REQUESTS"] = False
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Accounts (django-allauth): log in with username or email.
AUTH_USER_MODEL = "accounts.User"
AUTHENTICATION_BACKENDS = [
    "django.contrib.auth.backends.ModelBackend",
    "allauth.account.auth_backends.AuthenticationBackend",
]
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "account_login"

# Behind a TLS proxy every client looks like the proxy: the number of proxies of ours in front
# of the server (0: none; 1 behind one nginx/Caddy) says which X-Forwarded-For entry is the
# client, for the API's throttles, the login rate limits and the Idempotency-Key. A client's
# own X-Forwarded-For entries are never trusted beyond that count.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
ALLAUTH_TRUSTED_PROXY_COUNT = TRUSTED_PROXY_COUNT
LOGIN_REDIRECT_URL = "home"
ACCOUNT_LOGIN_METHODS = {"username", "email"}
ACCOUNT_SIGNUP_FIELDS = ["email*", "username*", "password1*", "password2*"]
ACCOUNT_SIGNUP_FORM_CLASS = "accounts.forms.SignupForm"
ACCOUNT_UNIQUE_EMAIL = True
ACCOUNT_EMAIL_VERIFICATION = env("ACCOUNT_EMAIL_VERIFICATION", default="mandatory")
ACCOUNT_CONFIRM_EMAIL_ON_GET = False
ACCOUNT_LOGIN_ON_EMAIL_CONFIRMATION = True
ACCOUNT_LOGOUT_REDIRECT_URL = "home"
ACCOUNT_DEFAULT_HTTP_PROTOCOL = env("ACCOUNT_DEFAULT_HTTP_PROTOCOL", default="http")

# --- Email: console locally; production reads EMAIL_URL (SMTP).
EMAIL_BACKEND = "django.core.mail.backends.console.EmailBackend"
DEFAULT_FROM_EMAIL = env("DEFAULT_FROM_EMAIL", default="warcamp <noreply@localhost>")
SERVER_EMAIL = DEFAULT_FROM_EMAIL

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files: served by whitenoise (compressed, hashed names outside DEBUG).
STATIC_URL = "/static/"
STATIC_ROOT = env.path("DJANGO_STATIC_ROOT", default=VAR_DIR / "staticfiles")
STATICFILES_DIRS = [BASE_DIR / "static"]
Path(STATIC_ROOT).mkdir(parents=True, exist_ok=True)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
}

# --- Celery: Redis when REDIS_URL is set, else kombu's filesystem transport under var/celery/.
REDIS_URL = env("REDIS_URL", default="")
CELERY_FS_DIR = Path(env("CELERY_FS_DIR", default=str(VAR_DIR / "celery"))).resolve()


def filesystem_broker_options(root: Path) -> dict[str, str]:
    """Transport options of kombu's filesystem broker under `root`, creating the folders."""
    folders = {
        "data_folder_in": root / "queue",
        "data_folder_out": root / "queue",
        "processed_folder": root / "processed",
        "control_folder": root / "control",
    }
    for folder in [*folders.values(), root / "results"]:
        folder.mkdir(parents=True, exist_ok=True)
    return {key: str(path) for key, path in folders.items()}


if REDIS_URL:
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {
        "visibility_timeout": 3600,
        "socket_connect_timeout": 3,
    }
else:
    CELERY_BROKER_URL = "filesystem://"
    CELERY_RESULT_BACKEND = f"file://{CELERY_FS_DIR / 'results'}"
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        **filesystem_broker_options(CELERY_FS_DIR),
        "store_processed": True,
    }
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_RESULT_EXTENDED = True
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = env.int("CELERY_TASK_TIME_LIMIT", default=300)
CELERY_TASK_SOFT_TIME_LIMIT = env.int("CELERY_TASK_SOFT_TIME_LIMIT", default=240)
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_BROKER_CONNECTION_TIMEOUT = 3
CELERY_TIMEZONE = "UTC"
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")
CELERY_BEAT_SCHEDULE: dict[str, dict[str, object]] = {}

# --- Campaigns: defaults of a new campaign's settings (each campaign stores its own copy;
# a scenario may override them).
# New campaigns one user may create in an hour.
CAMPAIGNS_PER_USER_PER_HOUR = env.int("CAMPAIGNS_PER_USER_PER_HOUR", default=10)
CAMPAIGN_DEFAULTS = {
    "phase_hours": 72,
    "points_budget": 500,
    "max_unit_types": 5,
    "ambush_value": 2,
    "terrain_known_to_all": True,
    "max_extension_hours": 7 * 24,
}

# --- Deadlines: the sweep runs every DEADLINE_SWEEP_SECONDS from Celery beat.
DEADLINE_SWEEP_SECONDS = env.int("DEADLINE_SWEEP_SECONDS", default=60)
DEADLINE_REMINDER_OFFSETS_HOURS = [
    int(h) for h in env.list("DEADLINE_REMINDER_OFFSETS_HOURS", default=["24", "1"])
]
# After this many failed attempts a phase's deadline processing is flagged for the GM.
DEADLINE_MAX_FAILURES = env.int("DEADLINE_MAX_FAILURES", default=3)
# How long after posting the author of a forum post may still edit it.
FORUM_EDIT_MINUTES = env.int("FORUM_EDIT_MINUTES", default=30)
# How long the map JSON of one state stays in the cache (campaigns/selectors/map_json.py;
# PostgreSQL only). 0: never cached.
MAP_CACHE_SECONDS = env.int("MAP_CACHE_SECONDS", default=600)
# The daily digest mails, for the users who chose them (at EMAIL_DIGEST_HOUR UTC).
EMAIL_DIGEST_HOUR = env.int("EMAIL_DIGEST_HOUR", default=7)
CELERY_BEAT_SCHEDULE["send-email-digests"] = {
    "task": "campaigns.tasks.send_email_digests",
    "schedule": crontab(minute=0, hour=EMAIL_DIGEST_HOUR),
}
CELERY_BEAT_SCHEDULE["sweep-deadlines"] = {
    "task": "campaigns.tasks.sweep_deadlines",
    "schedule": float(DEADLINE_SWEEP_SECONDS),
    "options": {"expires": float(DEADLINE_SWEEP_SECONDS)},
}

# --- REST API (/api/v1/): session auth for the browser, tokens for bots and tools; every
# endpoint needs a logged-in user. Token comes first so that an anonymous request is answered
# 401 with `WWW-Authenticate: Token` (DRF takes that header from the first class).
# Throttle rates are DRF's "<count>/<second|minute|hour|day>".
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.authentication.HashedTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_THROTTLE_CLASSES": [
        "rest_framework.throttling.AnonRateThrottle",
        "rest_framework.throttling.UserRateThrottle",
    ],
    "DEFAULT_THROTTLE_RATES": {
        "anon": env("API_THROTTLE_ANON", default="60/minute"),
        "user": env("API_THROTTLE_USER", default="600/minute"),
        # The rules calculators take CPU: anonymous callers get a budget of their own.
        "calculator_anon": env("API_THROTTLE_CALCULATOR_ANON", default="20/minute"),
        "calculator_user": env("API_THROTTLE_CALCULATOR_USER", default="120/minute"),
    },
    "DEFAULT_PARSER_CLASSES": [
        "campaigns.api.parsers.BoundedJSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_SCHEMA_CLASS": "campaigns.api.schema.AutoSchema",
    "NUM_PROXIES": TRUSTED_PROXY_COUNT,
    "EXCEPTION_HANDLER": "campaigns.api.errors.api_exception_handler",
}
# CPU seconds one rules calculation may use over HTTP (0: no limit); past it, 400 too_complex.
API_CALCULATOR_CPU_SECONDS = env.float("API_CALCULATOR_CPU_SECONDS", default=2.0)
# OpenAPI 3 at /api/schema/; Swagger UI and Redoc load their assets from this server
# (drf-spectacular-sidecar), never from a CDN.
SPECTACULAR_SETTINGS = {
    "TITLE": "warcamp API",
    "DESCRIPTION": "Referee server for play-by-forum hex campaigns: everything a player, the "
    "Chief Warlord or the GM does in the browser, for bots, tools and other clients.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    # No validator badge: Swagger UI would fetch it from validator.swagger.io.
    "SWAGGER_UI_SETTINGS": {"deepLinking": True, "validatorUrl": None},
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "PhaseKindEnum": "campaigns.models.PhaseKind",
        "SideKindEnum": "campaigns.models.SideKind",
        "RoleEnum": "campaigns.models.Role",
        "FortificationKindEnum": "campaigns.models.FortificationKind",
    },
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env("DJANGO_LOG_LEVEL", default="INFO")},
}
