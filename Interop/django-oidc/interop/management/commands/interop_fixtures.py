"""Create (or update) the test user and the public OAuth clients. Idempotent."""
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from oauth2_provider.models import get_application_model

from interop import fixtures


class Command(BaseCommand):
    help = "Create the interop test user and clients (idempotent)."

    def handle(self, *args, **options):
        User = get_user_model()
        user, _ = User.objects.get_or_create(username=fixtures.USERNAME)
        user.email = fixtures.EMAIL
        user.first_name, user.last_name = "Interop", "User"
        user.set_password(fixtures.PASSWORD)
        user.save()

        Application = get_application_model()
        for client_id, (grant, redirect_uris) in fixtures.CLIENTS.items():
            app, created = Application.objects.get_or_create(
                client_id=client_id,
                defaults={"authorization_grant_type": grant, "client_type": Application.CLIENT_PUBLIC},
            )
            app.name = client_id
            app.client_type = Application.CLIENT_PUBLIC
            app.authorization_grant_type = grant
            app.redirect_uris = redirect_uris
            app.algorithm = Application.RS256_ALGORITHM
            # No consent page: the scripted browser only has to sign in.
            app.skip_authorization = True
            app.save()
            self.stdout.write(f"{'created' if created else 'updated'} client {client_id} ({grant})")
        self.stdout.write(f"user {fixtures.USERNAME} ready")
