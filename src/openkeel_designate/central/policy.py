"""Policy checks with oslo.policy and Designate's default rules.

A denial raises ``Forbidden`` without a message, which the API renders as Designate does:
``{"code": 403, "type": "forbidden", "request_id": ...}``.
"""

from __future__ import annotations

from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from openkeel_designate.central.policy_rules import DEFAULT_RULES
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext


class Policy:
    """An enforcer loaded with the defaults plus any ``policy.yaml`` the operator configured."""

    def __init__(self, conf: cfg.ConfigOpts):
        self._enforcer = policy.Enforcer(conf, use_conf=True)
        self._enforcer.register_defaults(
            [policy.RuleDefault(name, check) for name, check in DEFAULT_RULES.items()]
        )
        self._enforcer.load_rules()

    def check(self, rule: str, ctx: RequestContext, target: dict[str, Any] | None = None) -> None:
        """Raise ``Forbidden`` unless ``ctx`` may do ``rule`` on ``target``."""
        if not self.allows(rule, ctx, target):
            raise errors.Forbidden()

    def allows(self, rule: str, ctx: RequestContext, target: dict[str, Any] | None = None) -> bool:
        full_target = {"project_id": ctx.project_id, "tenant_id": ctx.project_id}
        if target:
            full_target.update(target)
        return bool(self._enforcer.enforce(rule, full_target, ctx.credentials()))
