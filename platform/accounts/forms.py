"""Forms of the account pages (Django's own auth forms, with the site's username rules)."""

from __future__ import annotations

from django.contrib.auth.forms import AuthenticationForm, UserCreationForm

from accounts.services import USERNAME_MAX_LENGTH


class SignupForm(UserCreationForm):
    """Username and password twice; the account itself is created by ``user_register``."""

    class Meta(UserCreationForm.Meta):
        fields = ("username",)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["username"].max_length = USERNAME_MAX_LENGTH
        self.fields["username"].widget.attrs.update(maxlength=USERNAME_MAX_LENGTH, autocomplete="username")
        self.fields["username"].help_text = (
            f"Up to {USERNAME_MAX_LENGTH} characters: letters, digits and @ . + - _ only."
        )


class LoginForm(AuthenticationForm):
    """Django's login form; named here so that the template and tests have one place to look."""
