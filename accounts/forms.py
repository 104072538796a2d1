"""The profile form: display name and time zone."""

from django import forms

from .models import User, available_time_zones


class ProfileForm(forms.ModelForm):
    time_zone = forms.ChoiceField(choices=(), help_text=User._meta.get_field("time_zone").help_text)

    class Meta:
        model = User
        fields = ["display_name", "time_zone"]

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.fields["time_zone"].choices = [(z, z) for z in sorted(available_time_zones())]  # type: ignore[attr-defined]
