"""Who is calling: ``[service:api] auth_strategy`` picks how the caller is established.

``noauth`` trusts request headers (Designate's ``noauthcontext``); ``keystone`` validates the
token with Keystone first (what keystonemiddleware's ``auth_token`` does in Designate's paste
pipeline), then takes the caller from the token.  Both hand an ``Identity`` to ``api/context.py``,
which applies the request flags the same way for both.
"""

from __future__ import annotations

from oslo_config import cfg

from openkeel_designate.api.auth.base import AuthConfigError, Authenticator, FlagRefused, Identity

__all__ = ["AuthConfigError", "Authenticator", "FlagRefused", "Identity", "make_authenticator"]


def make_authenticator(conf: cfg.ConfigOpts) -> Authenticator:
    """The authenticator for ``[service:api] auth_strategy``."""
    if conf["service:api"].auth_strategy == "keystone":
        from openkeel_designate.api.auth.keystone import KeystoneAuth

        return KeystoneAuth(conf.keystone_authtoken)
    from openkeel_designate.api.auth.noauth import NoAuth

    return NoAuth()
