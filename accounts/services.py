"""Writes on accounts: profile updates and demo users."""

from django.db import transaction

from .models import NotificationKind, User


@transaction.atomic
def user_update_profile(
    *,
    user: User,
    display_name: str,
    time_zone: str,
    email_kinds: list[str] | None = None,
) -> User:
    user.display_name = display_name.strip()
    user.time_zone = time_zone
    if email_kinds is not None:
        user.email_notifications = {k: k in email_kinds for k in NotificationKind.values}
    user.full_clean(exclude=["password"])
    user.save(update_fields=["display_name", "time_zone", "email_notifications"])
    return user


@transaction.atomic
def user_ensure_demo(*, username: str, password: str, is_staff: bool = False) -> tuple[User, bool]:
    """Create a demo user with a verified email unless one exists; returns (user, created)."""
    from allauth.account.models import EmailAddress

    email = f"{username}@example.com"
    user, created = User.objects.get_or_create(
        username=username,
        defaults={"email": email, "is_staff": is_staff, "is_superuser": is_staff},
    )
    if created:
        user.set_password(password)
        user.save(update_fields=["password"])
    EmailAddress.objects.get_or_create(
        user=user, email=user.email, defaults={"verified": True, "primary": True}
    )
    return user, created
