"""The custom User: username or email login, a display name and a time zone."""

import zoneinfo

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.db import models
from django.db.models.functions import Lower


def validate_time_zone(value: str) -> None:
    if value not in available_time_zones():
        raise ValidationError(f"{value!r} is not a known IANA time zone (e.g. Europe/Berlin).")


def available_time_zones() -> frozenset[str]:
    return _TIME_ZONES


_TIME_ZONES = frozenset(zoneinfo.available_timezones())

# The areas of the tz database's real, current zones ("Europe/Berlin"): not the aliases and
# legacy names ("CET", "US/Pacific", "Etc/GMT+3", "Factory", "localtime") that a person would
# not look for.
_AREAS = ("Africa", "America", "Antarctica", "Arctic", "Asia", "Atlantic", "Australia",
          "Europe", "Indian", "Pacific")


def selectable_time_zones() -> list[str]:
    """The zones a person picks from, sorted, with UTC first."""
    return ["UTC", *sorted(z for z in _TIME_ZONES if z.split("/", 1)[0] in _AREAS
                           and "/" in z)]


class NotificationKind(models.TextChoices):
    """What a notification is about; users choose by kind which ones also come by email."""

    PHASE_OPENED = "phase_opened", "Phase opened"
    REMINDER = "reminder", "Deadline reminder"
    DEADLINE_REACHED = "deadline_reached", "Deadline reached (you are late / you may act as proxy)"
    PHASE_CLOSED = "phase_closed", "Phase closed with its report"
    COMBAT = "combat", "Combat involving your units"
    MENTION = "mention", "Mention"
    GENERAL = "general", "Other campaign news"


class User(AbstractUser):
    display_name = models.CharField(
        max_length=64, blank=True, help_text="The name other players see; your username if empty."
    )
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_time_zone],
        help_text="Deadlines and times are shown to you in this zone.",
    )

    # {kind: false} turns off email for that kind; every kind is emailed unless turned off.
    email_notifications = models.JSONField(default=dict, blank=True)
    # One mail a day with everything instead of one mail per notification.
    email_digest = models.BooleanField(
        default=False, help_text="One mail a day with all your notifications, instead of one "
        "mail each.")
    discord_id = models.CharField(
        max_length=20, blank=True, verbose_name="Discord user ID",
        validators=[RegexValidator(r"^\d{17,20}$", "A Discord user ID is 17 to 20 digits.")],
        help_text="So that deadline reminders a campaign posts to Discord mention you. In "
        "Discord: Settings → Advanced → Developer Mode on, then right-click your name → Copy "
        "User ID.")

    class Meta:
        constraints = [
            models.UniqueConstraint(
                Lower("email"),
                condition=~models.Q(email=""),
                name="accounts_user_email_unique_ci",
            ),
        ]

    def __str__(self) -> str:
        return self.public_name

    @property
    def public_name(self) -> str:
        return self.display_name or self.username

    def wants_email(self, kind: str) -> bool:
        return bool(self.email) and self.email_notifications.get(kind, True) is not False

    @property
    def zone(self) -> zoneinfo.ZoneInfo:
        return zoneinfo.ZoneInfo(self.time_zone)


class ApiToken(models.Model):
    """A user's API token, stored as its SHA-256 only: the key is shown once, at creation, and a
    database dump or the admin never shows a working key. One per user; a new one replaces it."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="api_token")
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=8)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.prefix}… of {self.user}"
