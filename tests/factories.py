"""factory-boy factories shared by the test suite."""

import factory
from allauth.account.models import EmailAddress

from accounts.models import User


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    email = factory.LazyAttribute(lambda u: f"{u.username}@example.com")
    password = factory.PostGenerationMethodCall("set_password", "correct horse battery")

    @factory.post_generation
    def verified_email(self, create: bool, extracted: object, **kwargs: object) -> None:
        if create:
            self.save()
            EmailAddress.objects.create(user=self, email=self.email, verified=True, primary=True)
