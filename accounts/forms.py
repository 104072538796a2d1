"""The profile form (display name, time zone, mail kinds) and the sign-up form's time zone."""

from django import forms

from .models import NotificationKind, User, selectable_time_zones


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=(), help_text=User._meta.get_field("time_zone").help_text)

    class Meta:
        model = User
        fields = ["display_name", "time_zone", "discord_id", "email_digest"]

    email_kinds = forms.MultipleChoiceField(
        choices=NotificationKind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Email me about",
        help_text="Every notification appears in the app; these also come by email.",
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        zones = selectable_time_zones()
        if self.instance.time_zone not in zones:
            zones.append(self.instance.time_zone)  # an older name kept until changed
        self.fields["time_zone"].choices = [(z, z) for z in zones]  # type: ignore[attr-defined]
        user = self.instance
        self.fields["email_kinds"].initial = [k for k in NotificationKind.values
                                              if user.email_notifications.get(k, True)]


class SignupForm(forms.Form):
    """allauth's sign-up form gains the time zone: the browser's own is chosen for the user
    to confirm (static/js/timezone.js), UTC without JavaScript."""

    time_zone = forms.ChoiceField(
        choices=(), initial="UTC", label="Time zone", required=False,
        help_text="Deadlines and times are shown in this zone; this is your browser's, "
                  "change it if it is wrong.")

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["time_zone"].choices = [(z, z) for z in selectable_time_zones()]  # type: ignore[attr-defined]

    def signup(self, request: object, user: User) -> None:
        user.time_zone = self.cleaned_data.get("time_zone") or "UTC"
        user.save(update_fields=["time_zone"])
