"""The profile form: display name and time zone."""

from django import forms

from .models import NotificationKind, User, available_time_zones


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=(), help_text=User._meta.get_field("time_zone").help_text)

    class Meta:
        model = User
        fields = ["display_name", "time_zone"]

    email_kinds = forms.MultipleChoiceField(
        choices=NotificationKind.choices,
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Email me about",
        help_text="Every notification appears in the app; these also come by email.",
    )

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["time_zone"].choices = [(z, z) for z in sorted(available_time_zones())]  # type: ignore[attr-defined]
        user = self.instance
        self.fields["email_kinds"].initial = [k for k in NotificationKind.values
                                              if user.email_notifications.get(k, True)]
