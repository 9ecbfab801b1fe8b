"""Create (or update) the signing key, the test user and the OAuth clients. Idempotent."""
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand
from oidc_provider.models import Client, ResponseType, RSAKey

from interop import fixtures


class Command(BaseCommand):
    help = "Load the RSA key and create the interop test user and clients (idempotent)."

    def handle(self, *args, **options):
        # django-oidc-provider signs with the keys in its RSAKey table; setup.sh generated this one locally.
        pem = (settings.VAR_DIR / "oidc_rsa_private.pem").read_text()
        RSAKey.objects.exclude(key=pem).delete()
        RSAKey.objects.get_or_create(key=pem)

        User = get_user_model()
        user, _ = User.objects.get_or_create(username=fixtures.USERNAME)
        user.email = fixtures.EMAIL
        user.first_name, user.last_name = "Interop", "User"
        user.set_password(fixtures.PASSWORD)
        user.save()

        for client_id, (client_type, response_types, redirect_uris, secret) in fixtures.CLIENTS.items():
            client, created = Client.objects.get_or_create(client_id=client_id)
            client.name = client_id
            client.client_type = client_type
            client.client_secret = secret
            client.jwt_alg = "RS256"
            client.redirect_uris = redirect_uris
            client.scope = fixtures.SCOPE
            # Confidential clients skip the consent page; public ones always get it for the code flow
            # (django-oidc-provider ignores require_consent=False for them), and the scripted browser accepts.
            client.require_consent = False
            client.reuse_consent = True
            client.save()
            client.response_types.set(ResponseType.objects.filter(value__in=response_types))
            self.stdout.write(f"{'created' if created else 'updated'} client {client_id} ({client_type})")
        self.stdout.write(f"user {fixtures.USERNAME} ready")
