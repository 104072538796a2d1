"""Admin for users."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from .models import User


@admin.register(User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (*BaseUserAdmin.fieldsets, ("Profile", {"fields": ("display_name", "time_zone")}))  # type: ignore[misc]
    list_display = ("username", "email", "display_name", "time_zone", "is_staff")
