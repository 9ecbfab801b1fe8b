"""OIDC_USERINFO: the standard claims django-oidc-provider may release for the fixture user's scopes."""


def userinfo(claims, user):
    claims["name"] = user.get_full_name()
    claims["given_name"] = user.first_name
    claims["family_name"] = user.last_name
    claims["preferred_username"] = user.get_username()
    claims["email"] = user.email
    claims["email_verified"] = True
    return claims
