from django.contrib.auth import views as auth_views
from django.urls import include, path

from interop import token_requests

urlpatterns = [
    path("accounts/login/", auth_views.LoginView.as_view(template_name="login.html"), name="login"),
    path("interop/token-requests/", token_requests.counts, name="token-requests"),
    path("openid/", include("oidc_provider.urls", namespace="oidc_provider")),
]
