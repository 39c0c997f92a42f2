"""Policy checks with oslo.policy and Designate's default rules.

A denial raises ``Forbidden`` without a message, which the API renders as Designate does:
``{"code": 403, "type": "forbidden", "request_id": ...}``.
"""

from __future__ import annotations

import time
from typing import Any

from oslo_config import cfg
from oslo_policy import policy

from openkeel_designate.central.policy_rules import DEFAULT_RULES
from openkeel_designate.domain import errors
from openkeel_designate.domain.context import RequestContext


# oslo.policy looks for the policy file (a stat per search directory) on every ``enforce``; a
# decision depends only on the rule, the target and the caller's credentials, so decisions are
# kept, and the file is looked at (``load_rules``) at most once per ``RELOAD_CHECK_S``. A changed
# file replaces the enforcer's rules object, which empties the kept decisions.
RELOAD_CHECK_S = 1.0
MAX_DECISIONS = 4096


def _frozen(value: Any) -> Any:
    """A hashable form of a target or credentials value (lists and dicts, recursively)."""
    if isinstance(value, dict):
        return tuple(sorted((k, _frozen(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple, set, frozenset)):
        return tuple(_frozen(v) for v in value)
    return value


class Policy:
    """An enforcer loaded with the defaults plus any ``policy.yaml`` the operator configured."""

    def __init__(self, conf: cfg.ConfigOpts):
        self._enforcer = policy.Enforcer(conf, use_conf=True)
        self._enforcer.register_defaults(
            [policy.RuleDefault(name, check) for name, check in DEFAULT_RULES.items()]
        )
        self._enforcer.load_rules()
        self._rules_seen = self._enforcer.rules
        self._next_check = time.monotonic() + RELOAD_CHECK_S
        self._decisions: dict[tuple, bool] = {}

    def check(self, rule: str, ctx: RequestContext, target: dict[str, Any] | None = None) -> None:
        """Raise ``Forbidden`` unless ``ctx`` may do ``rule`` on ``target``."""
        if not self.allows(rule, ctx, target):
            raise errors.Forbidden()

    def allows(self, rule: str, ctx: RequestContext, target: dict[str, Any] | None = None) -> bool:
        full_target = {"project_id": ctx.project_id, "tenant_id": ctx.project_id}
        if target:
            full_target.update(target)
        creds = ctx.credentials()
        now = time.monotonic()
        if now >= self._next_check:
            self._next_check = now + RELOAD_CHECK_S
            self._enforcer.load_rules()
            if self._enforcer.rules is not self._rules_seen:
                self._rules_seen = self._enforcer.rules
                self._decisions.clear()
        try:
            key = (rule, _frozen(full_target), _frozen(creds))
            hash(key)
        except TypeError:  # a value that cannot be kept: decide every time
            return bool(self._enforcer.enforce(rule, full_target, creds))
        decision = self._decisions.get(key)
        if decision is None:
            decision = bool(self._enforcer.enforce(rule, full_target, creds))
            if len(self._decisions) >= MAX_DECISIONS:
                self._decisions.clear()
            self._decisions[key] = decision
        return decision
