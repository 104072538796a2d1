"""Writes on accounts: profile updates, API tokens and demo users."""

from django.db import transaction

from .models import ApiToken, NotificationKind, User
from .tokens import new_token


@transaction.atomic
def user_update_profile(
    *,
    user: User,
    display_name: str,
    time_zone: str,
    email_kinds: list[str] | None = None,
    discord_id: str | None = None,
    email_digest: bool | None = None,
) -> User:
    user.display_name = display_name.strip()
    user.time_zone = time_zone
    if email_kinds is not None:
        user.email_notifications = {k: k in email_kinds for k in NotificationKind.values}
    if discord_id is not None:
        user.discord_id = discord_id.strip()
    if email_digest is not None:
        user.email_digest = email_digest
    user.full_clean(exclude=["password"])
    user.save(update_fields=["display_name", "time_zone", "email_notifications", "discord_id",
                             "email_digest"])
    return user


@transaction.atomic
def api_token_create(*, user: User) -> str:
    """A new API token for `user`, replacing any old one (which stops working at once). The key
    is returned this once; only its digest is stored."""
    # The user row lock serialises two clicks at once: one token per user.
    User.objects.select_for_update().get(pk=user.pk)
    ApiToken.objects.filter(user=user).delete()
    key, digest = new_token()
    ApiToken.objects.create(user=user, digest=digest, prefix=key[:6])
    return key


@transaction.atomic
def api_token_revoke(*, user: User) -> bool:
    """Delete the user's API token; returns whether there was one."""
    deleted, _ = ApiToken.objects.filter(user=user).delete()
    return deleted > 0


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
    elif (user.is_staff, user.is_superuser) != (is_staff, is_staff):
        # An older demo made the GM staff: the roles are those of this seed.
        user.is_staff = user.is_superuser = is_staff
        user.save(update_fields=["is_staff", "is_superuser"])
    EmailAddress.objects.get_or_create(
        user=user, email=user.email, defaults={"verified": True, "primary": True}
    )
    return user, created
